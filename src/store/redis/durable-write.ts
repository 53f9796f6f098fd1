import { positiveInteger } from '../../model/assert-number.ts'
import { refuseUnknownOptions } from '../../model/known-options.ts'
import { MAX_TIMER_MS } from '../../model/options-contract.ts'
import { typeName } from '../../model/describe-value.ts'
import type { RedisLike, RedisPipelineLike } from './redis-like.ts'
import { isNoScript, type LuaScript } from './run-script.ts'

/**
 * A write that counts only once replicas have it: after the script, on the same connection and in
 * the same round trip, `WAIT replicas timeoutMs`. Fewer replicas than `replicas` within `timeoutMs`
 * fail the call. Redis replicates asynchronously: without it, a failover can lose writes the
 * master acknowledged but had not yet sent to the replica.
 *
 * @example
 * redisStore(client, { durable: { replicas: 1, timeoutMs: 100 } })
 */
export interface RedisDurability {
  /** How many replicas must have the write. An integer, 1 or above. */
  readonly replicas: number
  /**
   * How long the server waits for them, in whole milliseconds (1 to 2^31-1; `WAIT` with 0 would
   * wait forever). The call fails when they do not answer in time.
   */
  readonly timeoutMs: number
}

/** Checks a `durable` option: `undefined` stays `undefined`; anything but `{ replicas, timeoutMs }` throws naming `label`. */
export function checkDurability(value: unknown, label: string): RedisDurability | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${label} must be an object { replicas, timeoutMs }, got ${typeName(value)}`)
  }
  refuseUnknownOptions(value, ['replicas', 'timeoutMs'], label)
  const given = value as Partial<RedisDurability>
  const timeoutMs = positiveInteger(given.timeoutMs, `${label}.timeoutMs`)
  // A duration as every other: commandTimeoutMs must outlast it, and no timer holds 2^31 ms or more.
  if (timeoutMs > MAX_TIMER_MS) throw new RangeError(`${label}.timeoutMs must be at most ${MAX_TIMER_MS} ms, got ${timeoutMs}`)
  return Object.freeze({ replicas: positiveInteger(given.replicas, `${label}.replicas`), timeoutMs })
}

/** Throws a `TypeError` unless `client` can pipeline, which a durable store needs to send `WAIT` beside each write. */
export function assertPipelines(client: RedisLike, label: string): void {
  if (typeof client.pipeline !== 'function') {
    throw new TypeError(`${label}: durable needs a client with pipeline() (an ioredis Redis or Cluster), to send WAIT on the connection of the write`)
  }
}

/** A client whose writes count once replicas have them: where {@link runDurably} sends a script, and how many replicas must have it. */
export interface DurableClient {
  readonly client: RedisLike
  readonly durable: RedisDurability
}

/**
 * Runs `script` and `WAIT` in one pipeline (an ioredis `Cluster` sends both to the node of the
 * keys), falling back to `EVAL` when the server lacks the script; resolves with the script's reply
 * once `durable.replicas` replicas have it, and rejects otherwise. A rejected write may still be on
 * the master: it is only not known to be anywhere else.
 */
export async function runDurably(target: DurableClient, script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
  const { client, durable } = target
  let [reply, replicas] = await scriptAndWait(client, durable, (p) => p.evalsha(script.sha1, keys.length, ...keys, ...args))
  if (reply instanceof Error && isNoScript(reply)) {
    ;[reply, replicas] = await scriptAndWait(client, durable, (p) => p.eval(script.source, keys.length, ...keys, ...args))
  }
  if (reply instanceof Error) throw reply
  if (replicas instanceof Error) throw replicas
  if (typeof replicas !== 'number' || replicas < durable.replicas) {
    throw new Error(`${String(replicas)} of ${durable.replicas} replicas acknowledged the write within ${durable.timeoutMs} ms (WAIT)`)
  }
  return reply
}

/** The script's reply and WAIT's, each a value or the Error the server answered with. */
async function scriptAndWait(client: RedisLike, durable: RedisDurability, write: (p: RedisPipelineLike) => unknown): Promise<[unknown, unknown]> {
  const pipeline = (client.pipeline as () => RedisPipelineLike).call(client)
  write(pipeline)
  pipeline.wait(durable.replicas, durable.timeoutMs)
  const replies = await pipeline.exec()
  if (!Array.isArray(replies) || replies.length !== 2) throw new Error(`unexpected pipeline reply ${typeName(replies)}`)
  return replies.map((r) => (Array.isArray(r) && r[0] instanceof Error ? r[0] : Array.isArray(r) ? r[1] : r)) as [unknown, unknown]
}
