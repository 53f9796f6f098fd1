import { typeName } from '../../model/describe-value.ts'
import { isRecord } from '../../model/is-record.ts'
import { messageOf } from '../../model/message-of.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import type { TraceRecord } from '../trace-record.ts'
import { callSummary, eventSignature } from './call-summary.ts'
import type { RecordedCall } from './recorded-call.ts'
import { recordedCalls } from './recorded-calls.ts'
import { type ReplayConfig, ReplayGates, replayCall } from './replay-call.ts'
import { compareCall, type ReplayedCall, type ReplayReport, replayReport } from './replay-report.ts'

/** Options of {@link replayTrace}. */
export interface ReplayTraceOptions {
  /**
   * The configuration to decide the recorded calls under, or a function choosing one per call (a
   * trace of several gates or agents: by its `agent`, `metadata`, model or providers). The calls
   * given the same configuration object are replayed through one gate, so a breaker or a budget
   * given as options carries its state from call to call as the recorded gate's did.
   */
  readonly config: ReplayConfig | ((call: RecordedCall) => ReplayConfig)
  /** Stops the replay: the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal
}

/** The options contract of {@link replayTrace}. */
export const REPLAY_TRACE = optionsContract<ReplayTraceOptions>('replayTrace', {
  config: option.where('a gate configuration (an object) or a function of the recorded call', (v) => isRecord(v) || typeof v === 'function'),
  signal: option.where('an AbortSignal', (v) => v instanceof AbortSignal),
})

/**
 * Decides every recorded gate call of a trace again under another configuration, without calling a
 * model: each call runs through the gate's own loop (`createGate`) with providers that answer with
 * the recorded answers in order, so each answer is extracted, validated and judged anew. Where the
 * configuration asks the model something the trace never recorded (one attempt more than recorded,
 * a provider it never called), the call stops there and is reported as `needs-model-answer`: no
 * answer is ever made up. The report says, per call, whether its decisions changed and where first,
 * and the attempts, tokens and cost per success before and after.
 *
 * Records come from `readTrace(text).records`; a call that cannot be replayed (cut short, its
 * answer redacted) is listed in `unreplayable` with why. A configuration that `createGate` refuses
 * rejects the replay with that error.
 *
 * @example
 * const { records } = readTrace(readFileSync('trace.jsonl', 'utf8'))
 * const report = await replayTrace(records, { config: { outputSchema: RefundV2, postDecide: strictOutputRules(2) } })
 * report.after.costPerSuccessUsd
 */
export async function replayTrace(records: readonly TraceRecord[], options: ReplayTraceOptions): Promise<ReplayReport> {
  return (await replayWithRecords(records, options)).report
}

/** A replay's report, and the records each replayed call made (for the viewer's page). @internal */
export interface ReplayWithRecords {
  readonly report: ReplayReport
  readonly replayed: readonly { readonly call: RecordedCall; readonly records: readonly TraceRecord[] }[]
}

/** {@link replayTrace}, keeping the replayed records. @internal */
export async function replayWithRecords(records: readonly TraceRecord[], options: ReplayTraceOptions): Promise<ReplayWithRecords> {
  if (!Array.isArray(records)) throw new TypeError(`replayTrace: records must be an array of trace records (readTrace(text).records), got ${typeName(records)}`)
  if (!isRecord(options)) throw new TypeError(`replayTrace: expected { config }, got ${typeName(options)}`)
  const o = REPLAY_TRACE.check(options)
  if (o.config === undefined) throw new TypeError('replayTrace: config is required (the gate configuration to replay under)')
  const { calls, unreplayable } = recordedCalls(records)
  const compared: ReplayedCall[] = []
  const replayed: { call: RecordedCall; records: readonly TraceRecord[] }[] = []
  const gates = new ReplayGates()
  for (const call of calls) {
    o.signal?.throwIfAborted()
    const config = configFor(o.config, call)
    const replay = await replayCall(call, config, gates, o.signal).catch((error: unknown) => {
      // A stop asked for is the caller's own reason, as it gave it.
      throw o.signal?.aborted === true && error === o.signal.reason ? error : withCall(call, error)
    })
    replayed.push({ call, records: replay.records })
    const before = callSummary(call.records)
    const after = callSummary(replay.records)
    const eventsIdentical =
      replay.needsModelAnswer === undefined &&
      replay.records.length === call.records.length &&
      replay.records.every((r, i) => eventSignature(r) === eventSignature(call.records[i] as TraceRecord))
    compared.push(compareCall(call, before, after, { needsModelAnswer: replay.needsModelAnswer, eventsIdentical, requestChanged: replay.requestChanged }))
  }
  return { report: replayReport(compared, unreplayable), replayed }
}

/** The configuration of one recorded call: the one given, or what the function given answers for it (checked). @internal */
export function configFor(source: ReplayTraceOptions['config'], call: RecordedCall, label = 'replayTrace'): ReplayConfig {
  if (typeof source !== 'function') return source
  let config: unknown
  try {
    config = source(call)
  } catch (error) {
    throw new Error(`${label}: config(call ${JSON.stringify(call.id)}) threw: ${messageOf(error)}`, { cause: error })
  }
  if (!isRecord(config)) throw new TypeError(`${label}: config(call ${JSON.stringify(call.id)}) must return a gate configuration, got ${typeName(config)}`)
  return config as ReplayConfig
}

/** The error of a call's replay, naming the call (a refused configuration keeps its class). */
function withCall(call: RecordedCall, error: unknown): unknown {
  if (!(error instanceof Error)) return error
  const Same = error instanceof RangeError ? RangeError : error instanceof TypeError ? TypeError : Error
  return new Same(`replayTrace: call ${JSON.stringify(call.id)}: ${error.message}`, { cause: error })
}
