import type { Subscription } from 'rxjs'
import { createGate, type Gate } from '../../gate/create-gate.ts'
import { isReliabilityFailFastError } from '../../gate/fail-fast-error.ts'
import type { GateConfig, ProviderEntry } from '../../gate/gate-config.ts'
import type { Message } from '../../model/message.ts'
import type { Provider } from '../../model/provider.ts'
import type { ModelRequest } from '../../model/request.ts'
import { jsonSafe } from '../json-safe.ts'
import { toTraceRecord, type TraceRecord } from '../trace-record.ts'
import type { RecordedCall } from './recorded-call.ts'
import { type NeedsModelAnswer, RecordedAnswers } from './replay-provider.ts'

/**
 * The configuration a trace is replayed under: a gate's (rules, schema, strict-output options,
 * budgets, breaker, fallback, pricing...), with `providers` naming the recorded providers in the
 * failover order to try (default: the order the call used). A name the trace never answered for
 * makes its first call a `needs-model-answer`.
 */
export interface ReplayConfig extends Omit<GateConfig<unknown>, 'providers' | 'events' | 'now'> {
  readonly providers?: readonly string[]
}

/** What replaying one call gave. */
export interface CallReplay {
  /** The replayed events, as trace records, up to the attempt that needed a model answer. */
  readonly records: readonly TraceRecord[]
  readonly needsModelAnswer: NeedsModelAnswer | undefined
  /** Replayed attempts sent another retry tail than the recorded answer followed. */
  readonly requestChanged: readonly number[]
}

/** A rule of the configuration (named through the gate's config: trace/ reads the gate, not the rules). */
type ReliabilityRule = NonNullable<GateConfig<unknown>['postDecide']>[number]

const NO_RULES: readonly ReliabilityRule[] = []

type ProviderSlot = readonly [name: string, model: string | undefined]

/** The call's providers are the first of the gate's, in the same order with the same models. */
function fits(call: readonly ProviderSlot[], gate: readonly ProviderSlot[]): boolean {
  return call.length <= gate.length && call.every(([name, model], i) => gate[i]?.[0] === name && gate[i]?.[1] === model)
}

/** The calls of one configuration share one gate, as the recorded calls shared theirs (its breaker, its budget). */
interface PooledGate {
  readonly gate: Gate<unknown>
  /** Its providers' names and models, in failover order. */
  readonly entries: readonly ProviderSlot[]
  readonly recordedPrices: boolean
  /** The answers of the call being replayed (calls are replayed one at a time). */
  current: RecordedAnswers | undefined
}

/**
 * The gates of a replay, one per configuration and provider order: a breaker or a budget given as
 * options lives in its gate, so the calls replayed under one configuration share it, as the
 * recorded calls of one gate did. Providers answer from the call being replayed.
 */
export class ReplayGates {
  readonly #gates = new Map<ReplayConfig, PooledGate[]>()

  /** The gate of `config` for `call`, with `answers` as its providers' answers. */
  gateFor(call: RecordedCall, config: ReplayConfig, answers: RecordedAnswers): Gate<unknown> {
    const { providers: order, ...rest } = config
    if (order !== undefined && !(Array.isArray(order) && order.length > 0 && order.every((n) => typeof n === 'string' && n !== ''))) {
      throw new TypeError('providers must name the recorded providers to replay, in failover order (a non-empty list of names): a replay calls no provider')
    }
    const names = order ?? call.providers.map((p) => p.name)
    const modelOf = (name: string) => call.providers.find((p) => p.name === name)?.model ?? call.attempts.find((a) => a.provider === name)?.model
    const entries: ProviderSlot[] = names.map((name) => [name, modelOf(name)] as const)
    const priced = rest.priceUsage !== undefined || rest.pricing !== undefined
    // A recording without pricing is replayed without pricing: its attempts are reported unpriced the same way.
    const recordedPrices = !priced && !call.unpriced
    const pool = this.#gates.get(config) ?? []
    this.#gates.set(config, pool)
    // A call that used fewer providers than an earlier one (its first answered) shares that call's gate.
    let pooled = pool.find((g) => g.recordedPrices === recordedPrices && fits(entries, g.entries))
    if (pooled === undefined) {
      const slot: { current: RecordedAnswers | undefined } = { current: undefined }
      const answer = (name: string, request: ModelRequest) => (slot.current as RecordedAnswers).answer(name, request)
      const providers: ProviderEntry[] = entries.map(([name, model]) => {
        const provider: Provider = { name, complete: (request) => answer(name, request) }
        return model === undefined ? { provider, name } : { provider, name, model }
      })
      const gate = createGate<unknown>({
        ...rest,
        preCheck: withoutWaits(rest.preCheck ?? NO_RULES),
        postDecide: withoutWaits(rest.postDecide ?? NO_RULES),
        providers,
        ...(recordedPrices ? { priceUsage: () => slot.current?.recordedPrice() ?? Number.NaN } : {}),
      })
      pooled = Object.assign(slot, { gate, entries, recordedPrices })
      pool.push(pooled)
    }
    pooled.current = answers
    return pooled.gate
  }
}

/**
 * Replays one recorded call through the gate of `config` (see {@link ReplayGates}), its providers
 * answering from the recording (see {@link RecordedAnswers}). Waits the rules ask for are not
 * slept: a replay decides, it does not wait. The request is the recorded one's shape (its model, as
 * many messages as it held); the messages' text is not in a trace, so a rule reading it reads a
 * placeholder.
 */
export async function replayCall(call: RecordedCall, config: ReplayConfig, gates: ReplayGates, signal: AbortSignal | undefined): Promise<CallReplay> {
  const stop = new AbortController()
  const answers = new RecordedAnswers(call, stop)
  const gate = gates.gateFor(call, config, answers)
  const records: TraceRecord[] = []
  let cut: number | undefined
  const subscription: Subscription = gate.events$.subscribe((event) => {
    if (event.type === 'attempt_start') answers.attempt = event.attempt
    if (cut === undefined && answers.needsModelAnswer !== undefined) cut = records.findLastIndex((r) => r.type === 'attempt_start')
    records.push(JSON.parse(JSON.stringify(jsonSafe(toTraceRecord(event, 0), []))) as TraceRecord)
  })
  const placeholders: Message[] = Array.from({ length: call.baseMessages }, (_, i) => ({
    role: 'user',
    content: `[replay: message ${i + 1} of ${call.baseMessages} of the recorded request; its text is not in the trace]`,
  }))
  const messages = [...placeholders, ...call.baseTail]
  const runSignal = signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal])
  try {
    await gate.run(call.model === undefined ? { messages } : { messages, model: call.model }, {
      runId: call.runId,
      signal: runSignal,
      validateOutput: !call.toolRetry,
      validationFailuresBefore: call.validationFailuresBefore,
      ...(call.turn === undefined ? {} : { turn: call.turn }),
      ...(call.metadata === undefined ? {} : { metadata: call.metadata }),
    })
  } catch (error) {
    if (!isReliabilityFailFastError(error)) throw error
    signal?.throwIfAborted()
  } finally {
    subscription.unsubscribe()
  }
  const needsModelAnswer = answers.needsModelAnswer
  const kept = needsModelAnswer === undefined ? records : records.slice(0, cut ?? records.length)
  return { records: kept, needsModelAnswer, requestChanged: answers.requestChanged }
}

/** The rules with every wait taken out (a rule whose fields cannot be read is left as it is: the gate reports it). */
export function withoutWaits(rules: readonly ReliabilityRule[]): readonly ReliabilityRule[] {
  if (!Array.isArray(rules)) return rules
  return rules.map((rule: ReliabilityRule) => {
    try {
      // Inherits the rule whole (a class's methods too), only the wait overridden.
      return rule.delayMs === undefined ? rule : (Object.create(rule, { delayMs: { value: 0, enumerable: true } }) as ReliabilityRule)
    } catch {
      return rule
    }
  })
}
