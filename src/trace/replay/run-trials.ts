import { createGate } from '../../gate/create-gate.ts'
import { isReliabilityFailFastError } from '../../gate/fail-fast-error.ts'
import type { ProviderEntry } from '../../gate/gate-config.ts'
import { typeName } from '../../model/describe-value.ts'
import { isRecord } from '../../model/is-record.ts'
import { messageOf } from '../../model/message-of.ts'
import type { Message } from '../../model/message.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import type { Provider } from '../../model/provider.ts'
import type { TraceRecord } from '../trace-record.ts'
import type { RecordedCall } from './recorded-call.ts'
import { recordedCalls } from './recorded-calls.ts'
import { type ReplayConfig, withoutWaits } from './replay-call.ts'
import { configFor } from './replay-trace.ts'

/** Options of {@link runTrials}. */
export interface RunTrialsOptions {
  /** The configuration to run every case under, or a function choosing one per case. */
  readonly config: ReplayConfig | ((call: RecordedCall) => ReplayConfig)
  /** Trials per case: each a whole gate run on fresh providers. */
  readonly trials: number
  /**
   * The providers of one trial of one case, in failover order: a scripted or simulated provider
   * seeded with the trial's number (`simulated({ seed: trial })`), so trials differ and a rerun is
   * the same.
   */
  readonly providers: (trial: number, call: RecordedCall) => Provider | readonly Provider[]
  /** Stops the trials: the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal
}

/** The options contract of {@link runTrials}. */
export const RUN_TRIALS = optionsContract<RunTrialsOptions>('runTrials', {
  config: option.where('a gate configuration (an object) or a function of the recorded call', (v) => isRecord(v) || typeof v === 'function'),
  trials: option.integer(1, 10_000),
  providers: option.function(),
  signal: option.where('an AbortSignal', (v) => v instanceof AbortSignal),
})

/** The trials of one case (one recorded call). */
export interface CaseTrials {
  readonly id: string
  readonly runId: string
  readonly trials: number
  readonly succeeded: number
  /** pass^k: every trial succeeded. */
  readonly passAll: boolean
  /** pass@k: some trial succeeded. */
  readonly passAny: boolean
  /** How many successful trials took each number of attempts: `{ 1: 7, 2: 2 }`. */
  readonly attemptsToSuccess: Readonly<Record<number, number>>
  /** How many trials failed, by fail-fast kind. */
  readonly failures: Readonly<Record<string, number>>
}

/** What repeated trials found. */
export interface TrialsReport {
  readonly trials: number
  readonly cases: readonly CaseTrials[]
  /** Share of cases whose every trial succeeded (pass^k). */
  readonly passAll: number
  /** Share of cases with at least one successful trial (pass@k). */
  readonly passAny: number
  /** Share of all trials that succeeded (pass@1, estimated over k trials). */
  readonly successRate: number
  /** Attempts-to-success over every successful trial of every case. */
  readonly attemptsToSuccess: Readonly<Record<number, number>>
}

/**
 * Runs every case of a trace (each recorded call: its model and request shape) `trials` times
 * through a gate of `config` on fresh providers per trial (a scripted or simulated provider seeded
 * with the trial), and reports per case pass^k (all trials succeed), pass@k (some trial succeeds)
 * and the attempts each success took. Waits the rules ask for are not slept.
 *
 * @example
 * const report = await runTrials(records, { config, trials: 8, providers: (trial) => simulated({ seed: trial }) })
 * report.passAll // share of cases that succeed 8 times out of 8
 */
export async function runTrials(records: readonly TraceRecord[], options: RunTrialsOptions): Promise<TrialsReport> {
  if (!Array.isArray(records)) throw new TypeError(`runTrials: records must be an array of trace records (readTrace(text).records), got ${typeName(records)}`)
  if (!isRecord(options)) throw new TypeError(`runTrials: expected { config, trials, providers }, got ${typeName(options)}`)
  const o = RUN_TRIALS.check(options)
  if (o.config === undefined || o.trials === undefined || o.providers === undefined) throw new TypeError('runTrials: config, trials and providers are required')
  const cases: CaseTrials[] = []
  for (const call of recordedCalls(records).calls) {
    let succeeded = 0
    const attemptsToSuccess: Record<number, number> = {}
    const failures: Record<string, number> = {}
    const config = configFor(o.config, call, 'runTrials')
    for (let trial = 1; trial <= o.trials; trial++) {
      o.signal?.throwIfAborted()
      const outcome = await oneTrial(call, config, providersOf(o.providers, trial, call), o.signal)
      if (outcome.ok) {
        succeeded++
        attemptsToSuccess[outcome.attempts] = (attemptsToSuccess[outcome.attempts] ?? 0) + 1
      } else failures[outcome.kind] = (failures[outcome.kind] ?? 0) + 1
    }
    cases.push({
      id: call.id,
      runId: call.runId,
      trials: o.trials,
      succeeded,
      passAll: succeeded === o.trials,
      passAny: succeeded > 0,
      attemptsToSuccess,
      failures,
    })
  }
  const share = (n: number) => (cases.length === 0 ? 0 : n / cases.length)
  const all: Record<number, number> = {}
  for (const c of cases) for (const [n, count] of Object.entries(c.attemptsToSuccess)) all[Number(n)] = (all[Number(n)] ?? 0) + count
  const total = cases.length * o.trials
  return {
    trials: o.trials,
    cases,
    passAll: share(cases.filter((c) => c.passAll).length),
    passAny: share(cases.filter((c) => c.passAny).length),
    successRate: total === 0 ? 0 : cases.reduce((n, c) => n + c.succeeded, 0) / total,
    attemptsToSuccess: all,
  }
}

function providersOf(make: RunTrialsOptions['providers'], trial: number, call: RecordedCall): readonly Provider[] {
  let given: unknown
  try {
    given = make(trial, call)
  } catch (error) {
    throw new Error(`runTrials: providers(${trial}, ${JSON.stringify(call.id)}) threw: ${messageOf(error)}`, { cause: error })
  }
  const list = Array.isArray(given) ? (given as unknown[]) : [given]
  if (list.length === 0 || !list.every((p) => isRecord(p) && typeof p.name === 'string' && typeof p.complete === 'function')) {
    throw new TypeError(`runTrials: providers(${trial}, ${JSON.stringify(call.id)}) must return a provider or a list of them, got ${typeName(given)}`)
  }
  return list as Provider[]
}

type TrialOutcome = { readonly ok: true; readonly attempts: number } | { readonly ok: false; readonly kind: string }

async function oneTrial(call: RecordedCall, config: ReplayConfig, providers: readonly Provider[], signal: AbortSignal | undefined): Promise<TrialOutcome> {
  const { providers: _names, ...rest } = config
  const entries: ProviderEntry[] = providers.map((provider) => (call.model === undefined ? { provider } : { provider, model: call.model }))
  const gate = createGate<unknown>({
    ...rest,
    preCheck: withoutWaits(rest.preCheck ?? []),
    postDecide: withoutWaits(rest.postDecide ?? []),
    providers: entries,
  })
  // The case's own words, so a simulated model answers each case its own way.
  const messages: Message[] = Array.from({ length: call.baseMessages }, (_, i) => ({ role: 'user', content: `case ${call.id}, message ${i + 1}` }))
  try {
    const result = await gate.run(
      { messages: [...messages, ...call.baseTail] },
      { validateOutput: !call.toolRetry, ...(signal === undefined ? {} : { signal }) },
    )
    return { ok: true, attempts: result.attempts.length }
  } catch (error) {
    if (!isReliabilityFailFastError(error)) throw error
    signal?.throwIfAborted()
    return { ok: false, kind: error.kind }
  }
}
