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
 * Runs a one-key script by its SHA1, falling back to `EVAL` (which caches it) when the server does
 * not know it yet: after a restart, a `SCRIPT FLUSH`, or on first use.
 */
export async function runScript(client: RedisLike, script: LuaScript, key: string, args: readonly (string | number)[]): Promise<unknown> {
  try {
    return await client.evalsha(script.sha1, 1, key, ...args)
  } catch (error) {
    if (!isNoScript(error)) throw error
    return client.eval(script.source, 1, key, ...args)
  }
}

function isNoScript(error: unknown): boolean {
  return messageOf(error).startsWith('NOSCRIPT')
}
