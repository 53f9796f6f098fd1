import { assertMethods } from '../../model/options-object.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import type { StateStore } from '../state-store.ts'
import { checkAmount, checkKey, checkReservationTtl, checkText, checkTtl, storeCalls } from '../store-args.ts'
import type { RedisLike } from './redis-like.ts'
import { COMPARE_AND_SET_SCRIPT, GET_SCRIPT, INCREMENT_SCRIPT, RESERVE_SCRIPT, SET_SCRIPT, SETTLE_SCRIPT, withEpoch } from './redis-scripts.ts'
import { messageOf } from '../../model/message-of.ts'
import { shownValue } from '../../model/describe-value.ts'
import { RedisStoreError, type RedisSessionOperation, type RedisStoreOperation } from './redis-store-error.ts'
import { luaScript, runScript, type LuaScript } from './run-script.ts'
import { besideKey, epochKey } from './slot-keys.ts'
import { StateLostError } from '../state-lost-error.ts'
import { markUnreadable } from '../unreadable-value.ts'
import { randomUUID } from 'node:crypto'
import { redisCallChecks, redisCallSettings } from './call-settings.ts'
import { type DurableClient, runDurably, type RedisDurability } from './durable-write.ts'

/** The operations of this store (the others are `redisSessionStore`'s). */
type StateOperation = Exclude<RedisStoreOperation, RedisSessionOperation>

/** Options of {@link redisStore}. */
export interface RedisStoreOptions {
  /**
   * Prepended to every key, to share one Redis database between applications (or tenants). When
   * given it must not be empty. On a cluster, a prefix with a hash tag (`'{billing}:'`) puts every
   * key of the store in one slot. @default ''
   */
  readonly keyPrefix?: string
  /**
   * Called when an operation finds that state vanished (a restart without persistence, an eviction,
   * a flush); the operation rejects with that same `StateLostError`. What it throws or rejects with
   * is ignored. @default none
   */
  readonly onStateLost?: (lost: StateLostError) => void
  /**
   * Reservations and charges (`reserve`, `settle`) count only once this many replicas have them:
   * each is followed by `WAIT replicas timeoutMs` in the same round trip, and fails with a
   * `RedisStoreError` when fewer replicas answer in time (a shared budget then fails closed, code
   * `budget-store-failed`). Without it, a Sentinel failover can lose the writes of the last moments
   * before it (replication is asynchronous). Needs a client with `pipeline()` (ioredis). The other
   * operations (breakers, rate limits: advisory) never wait. @default none
   * @example
   * redisStore(client, { durable: { replicas: 1, timeoutMs: 100 } })
   */
  readonly durable?: RedisDurability
  /**
   * An operation the server does not answer within this many milliseconds rejects with a
   * `RedisStoreError`, so a stalled server costs a breaker or a rate limit this long, not the
   * attempt's whole deadline: keep it well below the gate's `timeoutMs` (the policies' calls before
   * the provider call are sent together, and wait together). Above `durable.timeoutMs`.
   * Prefer it to ioredis's own `commandTimeout`, which `maxPending` cannot see. Whole milliseconds
   * from 1 to 2^31-1 (a timer of 2^31 ms or more would fire after 1 ms). It also bounds the wait
   * for a client that is still connecting for the first time. @default none
   */
  readonly commandTimeoutMs?: number
  /**
   * Operations sent and not yet answered (timed-out ones included, until the server answers or the
   * connection drops) beyond which a new one rejects at once, unsent, with a `RedisStoreError`:
   * what waits on a stalled server stays bounded. @default 1000
   */
  readonly maxPending?: number
}

/** The options `redisStore` takes, checked once: a misspelt key (`keyprefix`) is refused, not ignored. */
const REDIS_STORE = optionsContract<RedisStoreOptions>('redisStore', {
  // An empty prefix is the default: given, it must say something, or every tenant shares the same keys.
  keyPrefix: option.nonEmptyString(),
  onStateLost: option.function(),
  ...redisCallChecks('redisStore'),
})

const scripts = {
  get: luaScript(withEpoch(GET_SCRIPT)),
  set: luaScript(withEpoch(SET_SCRIPT)),
  increment: luaScript(withEpoch(INCREMENT_SCRIPT)),
  compareAndSet: luaScript(withEpoch(COMPARE_AND_SET_SCRIPT)),
  reserve: luaScript(withEpoch(RESERVE_SCRIPT)),
  settle: luaScript(withEpoch(SETTLE_SCRIPT)),
} as const satisfies Record<StateOperation, LuaScript>

/**
 * A {@link StateStore} in Redis, for budgets, breakers and rate limits shared by a fleet of
 * processes. Every method is one Lua script, so it is atomic across all clients of the server; TTLs
 * are server-side (`PX`) and values read back exactly as from `memoryStore` (counters included).
 *
 * Bring your own client: an ioredis `Redis` or `Cluster`, or anything with `eval`/`evalsha`. On
 * Redis Cluster every script touches one slot: a budget's reservations live beside its counter
 * (`{<key>}:holds`, or `<key>:holds` when the key has a hash tag of its own), and every other
 * operation touches its one key. Give the client bounded failure
 * modes, so that a lost server fails a call at once instead of queueing it: with ioredis,
 * `maxRetriesPerRequest: 0` and `enableOfflineQueue: false`; and give the store a `commandTimeoutMs`
 * below the gate's `timeoutMs`, so that a stalled server (one that keeps its connections and answers
 * nothing) costs a breaker or a rate limit that long, not the attempt. A client with
 * `enableOfflineQueue: false` that is still connecting for the first time is awaited until it is
 * ready; one that is not on its way (`lazyConnect` before `connect()`) is refused with a
 * `RedisStoreError` that says to await its `ready` event. Behind Sentinel, `durable`
 * makes reservations and charges survive a failover. Failures reject with a
 * `RedisStoreError`, and so does an operation on a counter that holds something that is not a number
 * (never read as 0); arguments are checked as `memoryStore` checks them (a `TypeError` or
 * `RangeError`, before any command is sent), and so are the options (an unknown key is a
 * `TypeError` with "did you mean").
 *
 * @example
 * import Redis from 'ioredis'
 * import { redisStore } from 'reliability-gate/redis'
 *
 * const store = redisStore(new Redis(process.env.REDIS_URL, { maxRetriesPerRequest: 0, enableOfflineQueue: false }), { keyPrefix: 'billing:', commandTimeoutMs: 100 })
 * createGate({ providers, breaker: circuitBreaker({ store }), budget: sharedBudget({ store, key: 'budget:2026-05', usd: 25 }) })
 */
export function redisStore(client: RedisLike, given?: RedisStoreOptions): StateStore {
  assertMethods(client, ['eval', 'evalsha'], 'redisStore: client', 'a Redis client with eval() and evalsha() (ioredis, or an adapter over node-redis)')
  const options = REDIS_STORE.check(given)
  const prefix = options.keyPrefix ?? ''
  const onStateLost = options.onStateLost
  const { durable, bounded } = redisCallSettings(client, options, 'redisStore')
  // Reservations and settles are the writes a failover must not lose: they wait for replicas.
  const durableClient: DurableClient | undefined = durable === undefined ? undefined : { client, durable }
  // The epoch this process saw, per epoch key: a different one, or none, on a later call means the state vanished.
  const epochs = new Map<string, string>()
  // The loss last found per epoch key: an operation sent before it was noticed finds that same loss, reported once.
  const losses = new Map<string, StateLostError>()

  async function run(operation: StateOperation, key: string, args: readonly (string | number)[]): Promise<unknown> {
    const full = prefix + key
    // A reservation's hash and keys live beside its counter, in the counter's cluster slot; so does the epoch.
    const keys = operation === 'reserve' || operation === 'settle' ? [full, besideKey(full, ':holds')] : [full]
    const epoch = epochKey(full)
    const seen = epochs.get(epoch) ?? ''
    const all = [...(keys.length === 1 ? args : [besideKey(full, ':hold:'), ...args]), seen, seen === '' ? randomUUID() : '']
    let reply: unknown
    try {
      const script = scripts[operation]
      const waiting = operation === 'reserve' || operation === 'settle' ? durableClient : undefined
      reply = await bounded(() =>
        waiting !== undefined ? runDurably(waiting, script, [...keys, epoch], all) : runScript(client, script, [...keys, epoch], all),
      )
    } catch (error) {
      throw new RedisStoreError(operation, full, unreadable(error))
    }
    const [verdict, found, result] = Array.isArray(reply) ? (reply as unknown[]) : []
    if (verdict === 'ok' && typeof found === 'string') {
      epochs.set(epoch, found)
      return result ?? null
    }
    if (verdict !== 'lost') throw new RedisStoreError(operation, full, new Error(`unexpected reply ${JSON.stringify(reply)}`))
    const known = losses.get(epoch)
    // Sent with an epoch this store already found lost (and forgot): it did nothing, and says so with the same error.
    if (known !== undefined && known.seen === seen && epochs.get(epoch) !== seen) throw known
    epochs.delete(epoch)
    const lost = new StateLostError({
      store: 'redisStore',
      key: full,
      epochKey: epoch,
      seen,
      found: typeof found === 'string' && found !== '' ? found : undefined,
    })
    losses.set(epoch, lost)
    report(onStateLost, lost)
    throw lost
  }

  return {
    async get(key) {
      checkKey(AT.get, key)
      const reply = await run('get', key, [])
      return reply === null || reply === undefined ? undefined : String(reply)
    },
    async set(key, value, ttlMs) {
      checkKey(AT.set, key)
      checkText(AT.set, key, 'value', value)
      checkTtl(AT.set, key, ttlMs)
      await run('set', key, [value, ttlArg(ttlMs)])
    },
    async increment(key, by, ttlMs) {
      checkKey(AT.increment, key)
      checkAmount(AT.increment, key, 'amount', by)
      checkTtl(AT.increment, key, ttlMs)
      const reply = await run('increment', key, [String(by), ttlArg(ttlMs)])
      const total = Number(reply)
      if (typeof reply !== 'string' || Number.isNaN(total)) throw new RedisStoreError('increment', prefix + key, new Error(`unexpected reply ${String(reply)}`))
      return total
    },
    async compareAndSet(key, expected, next, ttlMs) {
      checkKey(AT.compareAndSet, key)
      if (expected !== undefined) checkText(AT.compareAndSet, key, 'expected', expected)
      checkText(AT.compareAndSet, key, 'next', next)
      checkTtl(AT.compareAndSet, key, ttlMs)
      const reply = await run('compareAndSet', key, [expected === undefined ? '0' : '1', expected ?? '', next, ttlArg(ttlMs)])
      return reply === 1
    },
    async reserve(key, id, amount, limit, ttlMs) {
      checkKey(AT.reserve, key)
      checkText(AT.reserve, key, 'id', id)
      checkAmount(AT.reserve, key, 'amount', amount)
      checkAmount(AT.reserve, key, 'limit', limit)
      checkReservationTtl(AT.reserve, key, ttlMs)
      const reply = await run('reserve', key, [id, String(amount), String(limit), String(Math.ceil(ttlMs))])
      const [granted, spent, held] = Array.isArray(reply) ? (reply as unknown[]) : []
      const result = { granted: granted === 1, spent: Number(spent), held: Number(held) }
      if (typeof spent !== 'string' || typeof held !== 'string' || Number.isNaN(result.spent) || Number.isNaN(result.held)) {
        throw new RedisStoreError('reserve', prefix + key, new Error(`unexpected reply ${JSON.stringify(reply)}`))
      }
      return result
    },
    async settle(key, id, amount, ttlMs) {
      checkKey(AT.settle, key)
      checkText(AT.settle, key, 'id', id)
      checkAmount(AT.settle, key, 'amount', amount)
      checkTtl(AT.settle, key, ttlMs)
      const reply = await run('settle', key, [id, String(amount), ttlArg(ttlMs)])
      const total = Number(reply)
      if (typeof reply !== 'string' || Number.isNaN(total)) throw new RedisStoreError('settle', prefix + key, new Error(`unexpected reply ${String(reply)}`))
      return total
    },
  }
}

const AT = storeCalls('redisStore')

/** Calls the user's `onStateLost`; whatever it throws, or a promise it returns rejects with, is dropped. */
function report(onStateLost: ((lost: StateLostError) => void) | undefined, lost: StateLostError): void {
  if (onStateLost === undefined) return
  try {
    const answer: unknown = onStateLost(lost)
    if (typeof answer === 'object' && answer !== null && typeof (answer as PromiseLike<unknown>).then === 'function') {
      Promise.resolve(answer).catch(() => undefined)
    }
  } catch {
    // A reporter that fails must not turn a lost state into a different error.
  }
}

/**
 * A script's refusal of a counter that holds no number, said plainly (the value shown, cut); any
 * other failure as it is.
 */
function unreadable(error: unknown): unknown {
  const message = messageOf(error)
  const found = /^UNREADABLE(-HOLD)? (.*?)(?: script: [0-9a-f]{40}, on @user_script:\d+\.)?$/s.exec(message)
  if (found === null) return error
  // Redis appends " script: <sha>, on @user_script:<line>." to an error raised in a script.
  const what = found[1] === undefined ? 'the counter holds' : 'a reservation beside the counter holds'
  return markUnreadable(new Error(`${what} ${shownValue(found[2])}, which is not a number: refused rather than read as 0`, { cause: error }))
}

/**
 * The script's ttl argument (already checked): PX takes whole, positive milliseconds, as an integer
 * Redis can add to its clock: past 2^52 ms (142,000 years, as a reservation's) a ttl is as good as
 * endless, and a longer one (`1e19`, written `1e+19`) would be refused where `memoryStore` keeps the key.
 */
function ttlArg(ttlMs: number | undefined): string {
  if (ttlMs === undefined) return ''
  if (ttlMs === Number.POSITIVE_INFINITY) return 'inf'
  return ttlMs <= 0 ? '0' : String(Math.ceil(Math.min(ttlMs, LONGEST_TTL_MS)))
}

const LONGEST_TTL_MS = 2 ** 52
