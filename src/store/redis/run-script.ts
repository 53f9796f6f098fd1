import { createHash } from 'node:crypto'
import { messageOf } from '../../model/message-of.ts'
import type { RedisLike } from './redis-like.ts'

/** A Lua script with its SHA1, run by {@link runScript}. */
export interface LuaScript {
  readonly source: string
  readonly sha1: string
}

/** Hashes a script once, at store creation. */
export function luaScript(source: string): LuaScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') }
}

/**
 * Runs a script by its SHA1, falling back to `EVAL` (which caches it) when the server does not know
 * it yet: after a restart, a `SCRIPT FLUSH`, or on first use. `keys` is the script's key, or its
 * keys (all in one cluster slot: an ioredis `Cluster` sends the script to the node of the first).
 */
export async function runScript(client: RedisLike, script: LuaScript, keys: string | readonly string[], args: readonly (string | number)[]): Promise<unknown> {
  const all = typeof keys === 'string' ? [keys] : keys
  try {
    return await client.evalsha(script.sha1, all.length, ...all, ...args)
  } catch (error) {
    if (!isNoScript(error)) throw error
    return client.eval(script.source, all.length, ...all, ...args)
  }
}

/** True for the server's answer to `EVALSHA` of a script it does not know. */
export function isNoScript(error: unknown): boolean {
  return messageOf(error).startsWith('NOSCRIPT')
}
