import { option, optionsContract, type OptionCheck, type OptionsSpec } from '../../model/options-contract.ts'
import { type BoundedSend, commandBound, DEFAULT_MAX_PENDING } from './command-bound.ts'
import { assertPipelines, checkDurability, type RedisDurability } from './durable-write.ts'
import type { RedisLike } from './redis-like.ts'
import { noteIfReady, readyFirst } from './ready-first.ts'

/** How a Redis-backed store sends its calls: durably or not, and bounded in time and number. */
export interface RedisCallSettings {
  readonly durable: RedisDurability | undefined
  readonly bounded: BoundedSend
}

/** The options every Redis-backed store takes for its calls (`redisStore`, `redisSessionStore`). */
export interface RedisCallOptions {
  /** Writes that count only once replicas have them; see {@link RedisDurability}. @default none */
  readonly durable?: RedisDurability
  /** An operation unanswered after this many milliseconds rejects (1 to 2^31-1). @default none */
  readonly commandTimeoutMs?: number
  /** Operations unanswered beyond which a new one rejects unsent. @default 1000 */
  readonly maxPending?: number
}

/** An integer, 1 or above, with the wording the numeric checks of the library use. */
const positiveInteger: OptionCheck = option.where('a positive integer', (v) => Number.isSafeInteger(v) && (v as number) >= 1)

/**
 * The checks of the shared call options of a store named `label`, to spread into that store's own
 * options contract: `commandTimeoutMs` a duration below 2^31 ms (a larger timer fires after 1 ms),
 * `maxPending` a positive integer, `durable` `{ replicas, timeoutMs }`.
 *
 * @example
 * const CONTRACT = optionsContract<MyStoreOptions>('myStore', { ...redisCallChecks('myStore'), keyPrefix: option.string() })
 */
export function redisCallChecks(label: string): OptionsSpec<RedisCallOptions> {
  return {
    durable: (value) => {
      checkDurability(value, `${label}: durable`)
      return undefined
    },
    commandTimeoutMs: option.duration(),
    maxPending: positiveInteger,
  }
}

/** The contract of the shared call options alone, by store label (made once per label). */
const contracts = new Map<string, ReturnType<typeof optionsContract<RedisCallOptions>>>()
function callContract(label: string) {
  let contract = contracts.get(label)
  if (contract === undefined) contracts.set(label, (contract = optionsContract<RedisCallOptions>(label, redisCallChecks(label))))
  return contract
}

/**
 * Reads the `durable`, `commandTimeoutMs` and `maxPending` options shared by `redisStore` and
 * `redisSessionStore` (`label`), checked by {@link redisCallChecks} (the store's own contract refuses
 * its unknown keys): a durable store needs a client with pipelines, and a `commandTimeoutMs` that
 * outlasts the `WAIT` each answer may be held for. Every call first waits for a client that is not
 * ready yet (see `readyFirst`).
 */
export function redisCallSettings(client: RedisLike, options: RedisCallOptions, label: string): RedisCallSettings {
  const given = callContract(label).check({
    ...(options.durable !== undefined ? { durable: options.durable } : {}),
    ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
    ...(options.maxPending !== undefined ? { maxPending: options.maxPending } : {}),
  })
  const durable = checkDurability(given.durable, `${label}: durable`)
  if (durable !== undefined) assertPipelines(client, label)
  const timeoutMs = given.commandTimeoutMs
  if (durable !== undefined && timeoutMs !== undefined && timeoutMs <= durable.timeoutMs) {
    throw new RangeError(
      `${label}: commandTimeoutMs (${timeoutMs}) must exceed durable.timeoutMs (${durable.timeoutMs}): WAIT holds each answer up to that long`,
    )
  }
  const bounded = commandBound(timeoutMs, given.maxPending ?? DEFAULT_MAX_PENDING)
  noteIfReady(client)
  return {
    durable,
    bounded: (send) =>
      bounded(() => {
        const waiting = readyFirst(client, timeoutMs)
        return waiting === undefined ? send() : waiting.then(send)
      }),
  }
}
