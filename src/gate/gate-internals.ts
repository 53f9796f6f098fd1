import type { DurablePort } from '../durable/durable-port.ts'
import type { EventHub } from '../events/event-hub.ts'
import type { Chain } from '../policies/chain.ts'
import type { ResponseCall } from '../policies/chain-attempt.ts'
import type { DurableSteps } from './run/durable-steps.ts'
import type { GateAttempt } from './run/gate-attempt.ts'
import type { PriceUsage } from '../policies/pricing/price-usage.ts'
import type { FeedbackMode } from '../rules/reliability-config.ts'
import type { Decision, ReliabilityRule } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'
import type { ErrorTemplate } from '../validation/feedback/error-template.ts'
import type { CompiledSchema } from '../validation/index.ts'
import type { JsonSchema } from '../model/request.ts'
import type { FallbackAnswer } from './gate-config.ts'
import type { OutputModeState } from './output-mode/output-mode-state.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import type { ContentGuard } from '../validation/guards/index.ts'

/** The settled configuration a run reads; built once by `createGate`. */
export interface GateInternals<T> {
  readonly providers: readonly ResolvedProvider[]
  readonly schema: CompiledSchema<T> | undefined
  /** The JSON Schema requests send for `schema`: the gate's own deeply frozen copy (see `wireSchema`). */
  readonly wireSchema: JsonSchema | undefined
  /** The output mode: the gate's, what each provider may be sent each schema in, the compiled schemas. */
  readonly outputModes: OutputModeState
  readonly preCheck: readonly ReliabilityRule[]
  readonly postDecide: readonly ReliabilityRule[]
  /** The PostDecide rules that may match an accepted answer (those not marked `failuresOnly`). */
  readonly postDecideOnOk: readonly ReliabilityRule[]
  readonly feedbackMode: FeedbackMode
  readonly errorFeedback: boolean
  readonly maxFeedbackChars: number
  readonly maxFeedbackTokens: number | undefined
  readonly errorTemplate: ErrorTemplate | undefined
  readonly repair: boolean
  readonly retryHint: string | undefined
  readonly maxAttempts: number
  readonly fallback: ((scope: ReliabilityScope) => FallbackAnswer | Promise<FallbackAnswer>) | undefined
  readonly priceUsage: PriceUsage | undefined
  /** A budget relies on prices: attempts are unpriced (and reported) even without a price function. */
  readonly needsPrice: boolean
  /** Process warnings already written by this gate (see `warnOnce`). */
  readonly warned: Set<string>
  readonly events: EventHub
  readonly now: () => number
  /** The attempt chain (deadline, check, policies, meter, the user's links), compiled once. */
  readonly chain: Chain<GateAttempt<unknown>>
  /** Whether the chain has links of the user's (they, like `attempt_start` listeners, get a frozen copy of the request). */
  readonly userLinks: boolean
  /** Whether the chain has a deadline: the attempt's request then carries the attempt's own signal, made when read. */
  readonly stops: boolean
  /** The plain provider call at the end of the chain. */
  readonly call: ResponseCall
  /** The gate's durable-execution port (`createGate({ durable })`): every run without one of its own uses it. */
  readonly durable: DurablePort | undefined
  /**
   * The attempt chain split for durable runs: `outer` (the check) runs in the loop, `inner` (the
   * deadline, the policies, the meter, the user's links, the provider) inside the attempt's step.
   */
  readonly durableChain: DurableChain
  /** The deadline of a whole run, retries and waits included (`runTimeoutMs`). */
  readonly runTimeoutMs: number | undefined
  /** The content guards of the `output` surface: the answer stage screens each answer; a fallback's answer is screened too. */
  readonly outputGuards: readonly ContentGuard[]
  /** The content guards of the `stream` surface: `gate.stream` holds back their lookback of each attempt's text. */
  readonly streamGuards: readonly ContentGuard[]
}

/** The attempt chain of a durable run, in its two parts (see {@link GateInternals.durableChain}). */
export interface DurableChain {
  readonly outer: Chain<GateAttempt<unknown>>
  readonly inner: Chain<GateAttempt<unknown>>
}

/** Options of one `gate.run`. */
export interface GateRunOptions {
  /** Aborts the run: pending provider calls and waits settle at once with kind `aborted`. */
  readonly signal?: AbortSignal
  /**
   * Check a final answer against the output schema. The agent turns it off for tool-argument
   * retries, where a text reply means the model gave up on the call rather than answered.
   * @default true
   */
  readonly validateOutput?: boolean
  /** The run's id on every event, the result and the error. @default a new unique id */
  readonly runId?: string
  /** The caller's facts about this run (tenant, request id, ...), handed to middleware as `ctx.metadata` and put on every event. */
  readonly metadata?: Readonly<Record<string, unknown>>
  /**
   * Validation failures earlier in the same agent run (its other gate calls and tool arguments), so
   * `validation_failed.cumulativeRetries` counts over the whole run. @internal set by the agent
   * @default 0
   */
  readonly validationFailuresBefore?: number
  /** The agent's model turn this gate run belongs to, put on every event (the agent sets it). */
  readonly turn?: number
  /**
   * Index in the gate's `providers` of the provider the run's first attempt goes to (rules may move
   * it on from there). The agent sets it for a tool-argument retry, which asks the model that made
   * the call. @internal set by the agent
   * @default 0
   */
  readonly startProvider?: number
  /**
   * The deadline of this run, retries, waits and fallback included: past it the run fails with kind
   * `run-timeout`. Overrides the gate's `runTimeoutMs`. @default the gate's, else none
   */
  readonly runTimeoutMs?: number
  /**
   * The run's durable-execution port (`restatePort(ctx)`, `dbosPort()`, `memoryDurablePort(...)`):
   * each whole attempt (rate limit, breaker, budget, meter, provider call) is one journaled step, so a
   * resumed run does not call, pay or count again for an attempt that finished; the run's id is the
   * port's. Overrides the gate's `durable`. @default the gate's, else none
   */
  readonly durable?: DurablePort
}

/** Lets a caller overrule a decision (streaming: nothing can be retried once content was delivered). */
export type DecisionGuard = (decision: Decision, kind: string) => { readonly decision: Decision; readonly kind: string } | undefined

/** Extension points of a run, used by streaming: another terminal call and a decision guard. */
export interface RunHooks {
  readonly call?: ResponseCall
  readonly guardDecision?: DecisionGuard
  /** A durable run's steps (see `runDurable`): each attempt one step, each wait a durable sleep. */
  readonly durable?: DurableSteps
}
