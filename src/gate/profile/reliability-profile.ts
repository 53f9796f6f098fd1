import type { Subscription } from 'rxjs'
import type { EventSource } from '../../events/event-source.ts'
import { typeName } from '../../model/describe-value.ts'
import { messageOf } from '../../model/message-of.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import {
  type ErrorClass,
  MAX_PROFILED_RETRY,
  type RecoveryEstimate,
  type RecoveryKey,
  type RecoveryProfileReader,
  wilson,
} from '../../rules/recovery-estimate.ts'
import { memoryStore } from '../../store/memory-store.ts'
import { markUnreadable } from '../../store/unreadable-value.ts'
import type { StateStore } from '../../store/state-store.ts'
import { STATE_STORE_METHODS } from '../../store/state-store.ts'
import { ProfileObservations, type RetryObservation, type RunObservation } from './profile-observations.ts'
import { type Counters, keyPart, ProfileStore } from './profile-store.ts'

/** Options of {@link reliabilityProfile}. */
export interface ReliabilityProfileOptions {
  /** Where the counts live: a `redisStore` shares one profile across a fleet and keeps it across restarts. @default a private memoryStore() */
  readonly store?: StateStore
  /** Prefix of every key. @default 'rg:profile' */
  readonly keyPrefix?: string
  /** Length of one time bucket. @default 3_600_000 (an hour) */
  readonly bucketMs?: number
  /** Buckets in the window: older counts expire. @default 24 */
  readonly buckets?: number
  /** Clock in ms. @default Date.now */
  readonly now?: () => number
}

/** The options contract of {@link reliabilityProfile}. */
export const RELIABILITY_PROFILE = optionsContract<ReliabilityProfileOptions>('reliabilityProfile', {
  store: option.object(),
  keyPrefix: option.nonEmptyString(),
  bucketMs: option.duration(),
  buckets: option.integer(1, 10_000),
  now: option.function(),
})

/** One measured recovery rate, as {@link ReliabilityProfile.entries} lists them. */
export interface ProfileEntry extends RecoveryKey, RecoveryEstimate {}

/** A provider and model's calls over the window: success, attempts and cost per success. */
export interface ModelProfile {
  readonly provider: string
  readonly model: string | undefined
  readonly runs: number
  readonly succeeded: number
  readonly attempts: number
  readonly costUsd: number
  /** `null` without a success. */
  readonly attemptsPerSuccess: number | null
  readonly costPerSuccessUsd: number | null
}

/** A reliability profile: how often a retry recovers, per provider and model, error class and retry number. */
export interface ReliabilityProfile extends RecoveryProfileReader {
  /** Counts the gate calls of a gate or an agent from its events; returns the unsubscribe function. */
  observe(source: EventSource): () => void
  /** Every measured recovery rate, as last read (see {@link refresh}). */
  entries(): readonly ProfileEntry[]
  /** Every provider and model's calls, as last read. */
  models(): readonly ModelProfile[]
  /** Reads the whole window back from the store (what other processes wrote too). */
  refresh(): Promise<void>
  /** Resolves once every count observed so far is written and read back; rejects with the first store failure. */
  flush(): Promise<void>
}

// Read in the reverse of the order `record` adds them: a count another process adds between two reads
// is then in the later read only, so no reader sees more recoveries than retries, or successes than runs.
const RETRY_FIELDS = ['s', 't'] as const
const RUN_FIELDS = ['cost', 'attempts', 'ok', 'runs'] as const

/**
 * A reliability profile measured from the gate's own events: for each provider and model, error
 * class (parse, schema by keyword, truncation, transient, tool arguments) and retry number, how
 * often the retry's answer was accepted, with its 95% Wilson interval; and attempts and cost per
 * success. Counts live in a `StateStore`, in time buckets (a window of `buckets × bucketMs`), so
 * processes sharing a Redis share one profile, which survives restarts. Estimates are read
 * synchronously from what was last read back (a rule decides at once): each observed call's counts
 * are read back after they are written, `refresh()` reads everything. A store failure never reaches
 * a run: `flush()` reports it.
 *
 * @example
 * const profile = reliabilityProfile({ store: redisStore({ client }) })
 * profile.observe(agent)
 * profile.recovery({ provider: 'openai', model: 'gpt-4o-mini', errorClass: 'parse', retry: 1 }) // { rate, low, high, trials, recovered }
 */
export function reliabilityProfile(options?: ReliabilityProfileOptions): ReliabilityProfile {
  const o = RELIABILITY_PROFILE.check(options)
  const store = o.store ?? memoryStore()
  const missing = STATE_STORE_METHODS.filter((m) => typeof (store as unknown as Record<string, unknown>)[m] !== 'function')
  if (missing.length > 0) throw new TypeError(`reliabilityProfile: store must be a StateStore, missing ${missing.join(', ')} (got ${typeName(store)})`)
  const layout = new ProfileStore({
    store,
    prefix: o.keyPrefix ?? 'rg:profile',
    bucketMs: o.bucketMs ?? 3_600_000,
    buckets: o.buckets ?? 24,
    now: o.now ?? Date.now,
  })
  const retries = new Map<string, ProfileEntry>()
  const runs = new Map<string, ModelProfile>()
  let chain: Promise<void> = Promise.resolve()
  let failure: unknown

  const load = async (combo: string): Promise<void> => {
    const parts = combo.split('|').map((p) => (p === '-' ? undefined : decodeURIComponent(p)))
    if (parts[0] === 'r' && parts.length === 5) {
      const c = await layout.read(combo, RETRY_FIELDS)
      refuseImpossible(combo, c, RETRY_COUNTS)
      const retry = Number(parts[4])
      // A retry number no process writes (`x`, `0`, `01`) is a corrupted index: it would be a NaN or duplicate entry and gauge.
      if (!(Number.isInteger(retry) && retry >= 1 && retry <= MAX_PROFILED_RETRY && String(retry) === parts[4])) {
        throw markUnreadable(
          new TypeError(`reliabilityProfile: the index names ${JSON.stringify(combo)}, whose retry is not one of 1 to ${MAX_PROFILED_RETRY}`),
        )
      }
      const key = { provider: parts[1] ?? '', model: parts[2], errorClass: (parts[3] ?? 'other') as ErrorClass, retry }
      // Named in an index but not counted (another process between the two writes, or a write that failed): nothing measured.
      if ((c.t ?? 0) === 0) retries.delete(combo)
      else retries.set(combo, { ...key, ...wilson(c.s ?? 0, c.t ?? 0) })
    } else if (parts[0] === 'm' && parts.length === 3) {
      const c = await layout.read(combo, RUN_FIELDS)
      refuseImpossible(combo, c, RUN_COUNTS)
      const ok = c.ok ?? 0
      const per = (n: number) => (ok === 0 ? null : n / ok)
      const [attempts, costUsd] = [c.attempts ?? 0, c.cost ?? 0]
      runs.set(combo, {
        provider: parts[1] ?? '',
        model: parts[2],
        runs: c.runs ?? 0,
        succeeded: ok,
        attempts,
        costUsd,
        attemptsPerSuccess: per(attempts),
        costPerSuccessUsd: per(costUsd),
      })
    }
  }
  const record = async (observed: readonly RetryObservation[], run: RunObservation | undefined): Promise<void> => {
    const touched = new Set<string>()
    for (const r of observed) {
      const combo = retryCombo(r)
      await layout.add(combo, { t: 1, s: r.recovered ? 1 : 0 })
      touched.add(combo)
    }
    if (run !== undefined) {
      const combo = `m|${keyPart(run.provider)}|${keyPart(run.model)}`
      await layout.add(combo, { runs: 1, ok: run.ok ? 1 : 0, attempts: run.attempts, cost: run.costUsd })
      touched.add(combo)
    }
    for (const combo of touched) await load(combo)
  }
  // One write at a time, in order: counts are read back after they are written.
  const enqueue = (task: () => Promise<void>): Promise<void> => {
    chain = chain.then(task).catch((error: unknown) => {
      failure ??= error
    })
    return chain
  }

  return {
    observe(source) {
      if (typeof source !== 'object' || source === null || typeof (source as EventSource).events$?.subscribe !== 'function') {
        throw new TypeError('reliabilityProfile.observe: expected a gate or an agent (something with events$)')
      }
      const observations = new ProfileObservations()
      const sub: Subscription = source.events$.subscribe((event) => {
        const ended = observations.read(event)
        if (ended !== undefined && (ended.retries.length > 0 || ended.run !== undefined)) void enqueue(() => record(ended.retries, ended.run))
      })
      return () => sub.unsubscribe()
    },
    recovery(key) {
      return retries.get(retryCombo(key))
    },
    entries: () => [...retries.values()],
    models: () => [...runs.values()],
    refresh: () =>
      enqueue(async () => {
        for (const combo of await layout.combos()) await load(combo)
      }).then(report),
    flush: () => enqueue(async () => undefined).then(report),
  }

  function report(): void {
    if (failure === undefined) return
    const error = failure
    failure = undefined
    throw new Error(`reliabilityProfile: the store failed: ${messageOf(error)}`, { cause: error })
  }
}

/**
 * Counts no process writes (a fraction of a retry, more recoveries than retries, more successes than
 * runs) are a corrupted store, refused as unreadable: read as they are, they give a rate above 1 and a
 * `NaN` interval.
 */
/** What a combination's counts must be: the fields that count whole things, and the one that is part of another. */
interface CountRule {
  readonly whole: readonly string[]
  readonly part: string
  readonly total: string
}

const RETRY_COUNTS: CountRule = { whole: ['s', 't'], part: 's', total: 't' }
const RUN_COUNTS: CountRule = { whole: ['runs', 'ok', 'attempts'], part: 'ok', total: 'runs' }

const COUNTED: Readonly<Record<string, string>> = { s: 'recoveries', t: 'retries', runs: 'runs', ok: 'successes', attempts: 'attempts' }

function refuseImpossible(combo: string, c: Counters, { whole, part, total }: CountRule): void {
  const fraction = whole.find((f) => !Number.isInteger(c[f] ?? 0))
  const [n, of] = [c[part] ?? 0, c[total] ?? 0]
  if (fraction === undefined && n <= of) return
  const why = fraction === undefined ? `${COUNTED[part]} ${n} above ${COUNTED[total]} ${of}` : `${COUNTED[fraction]} ${c[fraction]} is not a whole count`
  throw markUnreadable(new TypeError(`reliabilityProfile: the counts of ${JSON.stringify(combo)} are impossible: ${why}`))
}

function retryCombo(key: RecoveryKey): string {
  return `r|${keyPart(key.provider)}|${keyPart(key.model)}|${keyPart(key.errorClass)}|${Math.min(Math.max(1, Math.floor(key.retry)), MAX_PROFILED_RETRY)}`
}
