import { type BoundedSend, checkBounds, commandBound } from './command-bound.ts'
import { assertPipelines, checkDurability, type RedisDurability } from './durable-write.ts'
import type { RedisLike } from './redis-like.ts'

/** How a Redis-backed store sends its calls: durably or not, and bounded in time and number. */
export interface RedisCallSettings {
  readonly durable: RedisDurability | undefined
  readonly bounded: BoundedSend
}

/**
 * Reads the `durable`, `commandTimeoutMs` and `maxPending` options shared by `redisStore` and
 * `redisSessionStore` (`label`): a durable store needs a client with pipelines, and a
 * `commandTimeoutMs` that outlasts the `WAIT` each answer may be held for.
 */
export function redisCallSettings(
  client: RedisLike,
  options: { readonly durable?: unknown; readonly commandTimeoutMs?: unknown; readonly maxPending?: unknown },
  label: string,
): RedisCallSettings {
  const durable = checkDurability(options.durable, `${label}: durable`)
  if (durable !== undefined) assertPipelines(client, label)
  const bounds = checkBounds(options.commandTimeoutMs, options.maxPending, label)
  if (durable !== undefined && bounds.timeoutMs !== undefined && bounds.timeoutMs <= durable.timeoutMs) {
    throw new RangeError(
      `${label}: commandTimeoutMs (${bounds.timeoutMs}) must exceed durable.timeoutMs (${durable.timeoutMs}): WAIT holds each answer up to that long`,
    )
  }
  return { durable, bounded: commandBound(bounds.timeoutMs, bounds.maxPending) }
}
