import type { ErrorKind } from '../model/error-kind.ts'
import type { Message } from '../model/message.ts'
import type { WireOutputMode } from '../model/output-mode.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse, StopReason } from '../model/response.ts'
import type { Usage } from '../model/usage.ts'
import type { ApprovalDecidedEvent, ApprovalRequestedEvent } from './approval-events.ts'
import type { DriftPayload } from './drift-payload.ts'
import type { ToolEndEvent } from './tool-end-event.ts'
import type { FailFastEvent } from './fail-fast-event.ts'
import type { RecoveredEvent } from './recovered-event.ts'
import type { GuardVerdictEvent } from './guard-verdict-event.ts'
import type { NoProgressEvent } from './no-progress-event.ts'
import type { Decision } from '../rules/rule.ts'
import type { Phase } from '../rules/scope.ts'
import type { ValidationIssue } from '../validation/issue.ts'
import type { ValidationStage } from '../validation/validation-failure.ts'

/**
 * What an event tells about the run it belongs to besides its `runId`, present only when known: an
 * agent run's model `turn` (1 for the first model call; tool-argument retries belong to the turn
 * whose call they fix), and the `metadata` the caller passed to `run(..., { metadata })`.
 */
export interface EventTags {
  /** The agent run's model turn (absent on the events of a plain `gate.run`). */
  readonly turn?: number
  /** The caller's run metadata, as given (absent when none was given). */
  readonly metadata?: Readonly<Record<string, unknown>>
  /** On the events of an attempt a durable run answered from its journal (it ran, and was reported, in an earlier process). */
  readonly replayed?: true
}

/** How a gate run or an agent run ended. */
export type RunOutcome = 'ok' | 'fail-fast'

/** Payloads as the emitters build them; {@link GateEventMap} adds the {@link EventTags}. */
export interface GateEventPayloads {
  /**
   * A gate run starts (`gate.run`, `gate.stream`, and each model call of an agent run, its
   * tool-argument retries included: they share the agent run's `runId`, and never overlap).
   */
  run_start: { readonly runId: string; readonly provider: string; readonly model: string | undefined }
  /** A gate run ended: accepted (`ok`) or about to throw its `ReliabilityFailFastError` (`fail-fast`). */
  run_end: {
    readonly runId: string
    readonly outcome: RunOutcome
    /** `ok`, or the fail-fast error's kind. */
    readonly kind: string
    /** Attempts made (0 when a PreCheck rule stopped the run before the first call). */
    readonly attempts: number
    /** The provider of the last attempt (`fallback` when the configured fallback answered). */
    readonly provider: string
    readonly usage: Usage
    readonly costUsd: number
    readonly durationMs: number
    readonly fromFallback: boolean
  }
  /** An agent run starts (`agent.run`, `runTyped`, `runDetailed`). */
  agent_run_start: { readonly runId: string; readonly agent: string }
  /** An agent run ended, with what the whole run spent. */
  agent_run_end: {
    readonly runId: string
    readonly agent: string
    readonly outcome: RunOutcome
    /** `ok`, or the error's kind. */
    readonly kind: string
    /** Model turns made. */
    readonly turns: number
    /** Attempts of every model call of the run. */
    readonly attempts: number
    readonly usage: Usage
    readonly costUsd: number
    /** Which output-fallback tier answered, if any. */
    readonly outputFallback: 'fallback' | 'canned' | undefined
  }
  /** One logical tool call starts (before its arguments are validated). */
  tool_start: { readonly runId: string; readonly agent: string; readonly tool: string; readonly callId: string; readonly args: unknown }
  /** One logical tool call is settled (argument retries folded in). */
  tool_end: ToolEndEvent
  /** An attempt is about to call a provider. `attempt` is 1-indexed. */
  attempt_start: {
    readonly runId: string
    readonly attempt: number
    readonly provider: string
    readonly providerIdx: number
    readonly model: string | undefined
    /** What the provider is sent: the base request plus this attempt's ephemeral tail. */
    readonly request: ModelRequest
  }
  /** An attempt's provider call and validation are over (before the decision). */
  attempt_end: {
    /** The run this event belongs to (as on its result and error). */
    readonly runId: string
    readonly attempt: number
    readonly provider: string
    readonly model: string | undefined
    readonly errorKind: ErrorKind
    readonly latencyMs: number
    readonly usage: Usage
    /** Why the model stopped (absent when the provider call failed). */
    readonly finishReason: StopReason | undefined
    /** The model's raw response (absent when the provider call failed). */
    readonly response: ModelResponse | undefined
  }
  /** The model's output failed validation. Fired before any rule decides. */
  validation_failed: {
    /** The run this event belongs to (as on its result and error). */
    readonly runId: string
    /** The provider and model that produced the invalid output. */
    readonly provider: string
    readonly model: string | undefined
    readonly message: string
    readonly stage: ValidationStage
    readonly path?: string | undefined
    readonly rawOutput?: string | undefined
    readonly issues: readonly ValidationIssue[]
    /**
     * The attempt that produced the invalid output, numbered from 1: the gate's attempt for a final
     * answer, the attempt within the logical tool call for tool arguments (`stage: 'tool-args'`).
     */
    readonly attempt: number
    /**
     * Validation failures so far in this run, this one included, as agentfootprint defines it
     * ("total output-schema failures ... same as `validationErrorHistory.length`"): 1 on the first
     * failure. In a `gate.run` it equals `scope.validationErrorHistory.length` at the PostDecide of
     * this attempt; in an agent run it counts over the whole run, final answers and tool arguments
     * alike (each asks the model for one more attempt, hence the name). Unlike `attempt`, transport
     * failures (5xx, timeouts) never count. A leading indicator of model drift.
     */
    readonly cumulativeRetries: number
  }
  /** A rule (or the default) decided what to do. */
  decision: {
    /** The run this event belongs to (as on its result and error). */
    readonly runId: string
    readonly attempt: number
    readonly phase: Phase
    /** What was decided; `'continue'` only in PreCheck (a rule that lets the attempt go on, in agentfootprint's words). */
    readonly decision: Decision | 'continue'
    readonly kind: string
    readonly label?: string | undefined
    /** False when no rule matched and the default applied. */
    readonly matched: boolean
  }
  /** The gate is about to retry. */
  retry: {
    /** The run this event belongs to (as on its result and error). */
    readonly runId: string
    readonly attempt: number
    readonly nextAttempt: number
    readonly decision: 'retry' | 'retry-other'
    readonly fromProvider: string
    readonly toProvider: string
    readonly delayMs: number
    readonly feedback: string | undefined
    /** The ephemeral tail the next attempt is sent after the base request; never persisted. */
    readonly tail: readonly Message[]
  }
  /** A run succeeded after at least one failed attempt (how, after how many failures, of which kind). */
  recovered: RecoveredEvent
  /** The run is about to throw a ReliabilityFailFastError (with the provider, error kind and message of its `payload`). */
  fail_fast: FailFastEvent
  /** The gate calls the configured fallback. */
  fallback: { readonly runId: string; readonly attempt: number; readonly kind: string }
  /** The JSON of an answer was repaired deterministically and then passed the schema. */
  repaired: { readonly runId: string; readonly attempt: number; readonly provider: string; readonly repairs: readonly string[] }
  /** A feedback template failed to render; the built-in feedback was used instead. */
  template_error: { readonly runId: string; readonly attempt: number; readonly error: unknown }
  /** Cost after an attempt (every attempt is billed, failed ones and tool-argument retries included). */
  cost_tick: {
    readonly runId: string
    readonly attempt: number
    readonly provider: string
    readonly model: string | undefined
    readonly attemptCostUsd: number
    readonly cumulativeCostUsd: number
    readonly usage: Usage
  }
  /** A cost budget was exceeded (`warn` lets the run go on, `halt` stops it). */
  budget_exceeded: { readonly runId: string; readonly budgetUsd: number; readonly spentUsd: number; readonly action: 'warn' | 'halt' }
  /**
   * A policy's store found the policy's state gone (a Redis restarted without persistence, keys
   * evicted or flushed: a `StateLostError`), once per loss. A budget then fails closed until
   * `budget.rearm()`; a breaker and a rate limit let calls through and start again from zero.
   */
  state_lost: {
    readonly runId: string
    readonly policy: 'budget' | 'breaker' | 'rate-limit'
    readonly provider: string
    /** The key of the operation that noticed (store prefix included). */
    readonly key: string
    /** The epoch this process saw before, and the one found now (`undefined`: the state was wiped). */
    readonly seen: string
    readonly found: string | undefined
    readonly message: string
  }
  /** A provider's circuit breaker changed state. */
  breaker_state: {
    readonly runId: string
    readonly provider: string
    readonly from: 'closed' | 'open' | 'half-open'
    readonly to: 'closed' | 'open' | 'half-open'
    readonly failures: number
  }
  /** The outcome of one logical tool call's argument validation and retries. */
  tool_retry_outcome: {
    /** The run this event belongs to (as on its result and error). */
    readonly runId: string
    readonly tool: string
    readonly outcome: 'no_retry' | 'success' | 'redundant' | 'exhausted' | 'llm_gave_up' | 'fabricated_id_on_retry'
    /** Imperal's `retry_count`: the retries the model answered with a call of the tool (0 for a give-up on the first retry). */
    readonly retryCount: number
    readonly agent: string
  }
  /** The run makes no progress and climbed a rung of the no-progress ladder; emitted before the rung is acted on. */
  no_progress: NoProgressEvent
  /** A content guard gave its verdict on one surface (input, history, tool args or result, MCP description, output, stream, retry tail); emitted before it is acted on. */
  guard_verdict: GuardVerdictEvent
  /** The agent's output fallback tier 2 (`fallback(error, rawOutput)`) is used. */
  output_fallback_triggered: { readonly runId: string; readonly kind: string; readonly reason: string }
  /** The agent's canned answer (tier 3) is used. */
  output_canned_used: { readonly runId: string; readonly kind: string; readonly reason: string }
  /** A progressive stream was aborted on a definite schema violation. */
  stream_aborted: {
    readonly runId: string
    readonly attempt: number
    readonly path: string
    readonly reason: string
    readonly consumedChars: number
    readonly consumedShare: number | undefined
  }
  /** A listener threw; the run went on. */
  listener_error: { readonly runId: string; readonly event: string; readonly error: unknown }
  /**
   * A rule misbehaved: its `when`, `feedbackForLLM` or `delayMs` threw or gave something unusable
   * (the run went on with a safe default), or a matching rule's `then` was no Decision (`where:
   * 'then'`, the run fails with kind `invalid-rule`).
   */
  rule_error: {
    readonly runId: string
    readonly attempt: number
    readonly kind: string
    readonly where: 'when' | 'then' | 'feedbackForLLM' | 'delayMs'
    readonly error: unknown
  }
  /**
   * An attempt's cost could not be priced (no price for its model, a price function that threw or
   * answered something other than a finite, non-negative number, or no pricing at all while a budget
   * needs one). Its cost counts as 0 in `costUsd`; budgets warn or fail closed as configured
   * (`onUnpriced`). `source` says who could not price: the run's meter or a shared budget.
   */
  cost_unknown: {
    readonly runId: string
    readonly attempt: number
    readonly provider: string
    readonly model: string | undefined
    readonly source: 'meter' | 'shared-budget'
    readonly reason: string
    readonly usage: Usage
  }
  /**
   * A schema is sent to a provider below the output mode asked for, by this gate from now on: the
   * provider refused it (`schema-rejected`, one 400), it does not compile for the provider's dialect
   * without changing meaning (`uncompilable`), or the provider has no native mode (`no-native-mode`).
   * `schemaDigest`: the SHA-256 of the schema's JSON text.
   */
  output_mode_demoted: { readonly runId: string; readonly provider: string; readonly from: WireOutputMode; readonly to: WireOutputMode } & {
    readonly cause: 'schema-rejected' | 'uncompilable' | 'no-native-mode'
    readonly reason: string
    readonly schemaDigest: string
  }
  /**
   * A drift monitor's rolling signal crossed its threshold for a provider and model (`state`
   * `above`), or came back under it (`below`). `runId` is the run whose end moved the signal.
   */
  drift: DriftPayload
  /** A tool call needs a human's approval: the run pauses (see {@link ApprovalRequestedEvent}). */
  approval_requested: ApprovalRequestedEvent
  /** A paused tool call's approval was decided or expired, before the decision is acted on. */
  approval_decided: ApprovalDecidedEvent
}

/**
 * Payloads of every event the gate and the agent emit, keyed by event name. Every payload carries
 * the `runId` of its run, so events of concurrent runs on one gate or agent can be told apart, and
 * the run's {@link EventTags} when it has them.
 */
export type GateEventMap = { readonly [K in keyof GateEventPayloads]: GateEventPayloads[K] & EventTags }

/** Name of an event. */
export type GateEventName = keyof GateEventMap

/** An event as carried by `events$`: its name plus its payload. */
export type GateEvent = { [K in GateEventName]: { readonly type: K } & GateEventMap[K] }[GateEventName]
