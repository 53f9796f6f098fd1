import type { EventHub } from '../events/event-hub.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'
import type { Usage } from '../model/usage.ts'
import type { FeedbackMode } from '../rules/reliability-config.ts'
import type { Decision, ReliabilityRule } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'
import type { ErrorTemplate } from '../validation/feedback/error-template.ts'
import type { CompiledSchema } from '../validation/index.ts'
import type { CircuitBreaker } from './breaker/circuit-breaker.ts'
import type { FallbackAnswer } from './gate-config.ts'
import type { SharedBudget } from './pricing/shared-budget.ts'
import type { SharedRateLimit } from './rate-limit/shared-rate-limit.ts'
import type { ResolvedProvider } from './resolved-provider.ts'

/** The settled configuration a run reads; built once by `createGate`. */
export interface GateInternals<T> {
  readonly providers: readonly ResolvedProvider[]
  readonly schema: CompiledSchema<T> | undefined
  readonly preCheck: readonly ReliabilityRule[]
  readonly postDecide: readonly ReliabilityRule[]
  readonly feedbackMode: FeedbackMode
  readonly errorFeedback: boolean
  readonly maxFeedbackChars: number
  readonly maxFeedbackTokens: number | undefined
  readonly errorTemplate: ErrorTemplate | undefined
  readonly repair: boolean
  readonly retryHint: string | undefined
  readonly maxAttempts: number
  readonly timeoutMs: number | undefined
  readonly fallback: ((scope: ReliabilityScope) => FallbackAnswer | Promise<FallbackAnswer>) | undefined
  readonly priceUsage: ((usage: Usage, model: string | undefined, provider: string) => number) | undefined
  readonly events: EventHub
  readonly now: () => number
  /** Consulted before every provider call; `undefined` costs nothing per attempt. */
  readonly breaker: CircuitBreaker | undefined
  /** Checked before and charged after every attempt. */
  readonly budget: SharedBudget | undefined
  /** A slot is taken before every provider call; `undefined` costs nothing per attempt. */
  readonly rateLimit: SharedRateLimit | undefined
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
}

/** How one attempt calls its provider: the plain call by default, a streaming call for `gate.stream`. */
export type ProviderCall = (
  entry: ResolvedProvider,
  request: ModelRequest,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  attempt: number,
) => Promise<ModelResponse>

/** Lets a caller overrule a decision (streaming: nothing can be retried once content was delivered). */
export type DecisionGuard = (decision: Decision, kind: string) => { readonly decision: Decision; readonly kind: string } | undefined

/** Extension points of a run, used by streaming. */
export interface RunHooks {
  readonly call?: ProviderCall
  readonly guardDecision?: DecisionGuard
}
