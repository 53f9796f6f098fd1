import type { ErrorKind } from '../model/error-kind.ts'
import type { Usage } from '../model/usage.ts'
import type { Decision } from '../rules/rule.ts'
import type { Phase } from '../rules/scope.ts'
import type { ValidationIssue } from '../validation/issue.ts'
import type { ValidationStage } from '../validation/validation-failure.ts'

/**
 * Payloads of every event the gate and the agent emit, keyed by event name. Every payload carries
 * the `runId` of its run, so events of concurrent runs on one gate or agent can be told apart.
 */
export interface GateEventMap {
  /** An attempt is about to call a provider. `attempt` is 1-indexed. */
  attempt_start: { readonly runId: string; readonly attempt: number; readonly provider: string; readonly providerIdx: number; readonly model: string | undefined }
  /** An attempt's provider call and validation are over (before the decision). */
  attempt_end: {
    /** The run this event belongs to (as on its result and error). */
    readonly runId: string
    readonly attempt: number
    readonly provider: string
    readonly errorKind: ErrorKind
    readonly latencyMs: number
    readonly usage: Usage
  }
  /** The model's output failed validation. Fired before any rule decides. */
  validation_failed: {
    /** The run this event belongs to (as on its result and error). */
    readonly runId: string
    readonly message: string
    readonly stage: ValidationStage
    readonly path?: string | undefined
    readonly rawOutput?: string | undefined
    readonly issues: readonly ValidationIssue[]
    /** 1-indexed attempt that produced the invalid output. */
    readonly attempt: number
    /** Validation failures so far in this run, this one included. */
    readonly cumulativeRetries: number
  }
  /** A rule (or the default) decided what to do. */
  decision: {
    /** The run this event belongs to (as on its result and error). */
    readonly runId: string
    readonly attempt: number
    readonly phase: Phase
    readonly decision: Decision
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
  }
  /** A run succeeded after at least one failed attempt. */
  recovered: { readonly runId: string; readonly attempt: number; readonly failedAttempts: number; readonly provider: string }
  /** The run is about to throw a ReliabilityFailFastError. */
  fail_fast: { readonly runId: string; readonly attempt: number; readonly kind: string; readonly reason: string; readonly phase: Phase }
  /** The gate calls the configured fallback. */
  fallback: { readonly runId: string; readonly attempt: number; readonly kind: string }
  /** The JSON of an answer was repaired deterministically and then passed the schema. */
  repaired: { readonly runId: string; readonly attempt: number; readonly provider: string; readonly repairs: readonly string[] }
  /** A feedback template failed to render; the built-in feedback was used instead. */
  template_error: { readonly runId: string; readonly attempt: number; readonly error: unknown }
  /** Cost after an attempt (every attempt is billed, failed ones and tool-argument retries included). */
  cost_tick: { readonly runId: string; readonly attempt: number; readonly provider: string; readonly model: string | undefined; readonly attemptCostUsd: number; readonly cumulativeCostUsd: number; readonly usage: Usage }
  /** A cost budget was exceeded (`warn` lets the run go on, `halt` stops it). */
  budget_exceeded: { readonly runId: string; readonly budgetUsd: number; readonly spentUsd: number; readonly action: 'warn' | 'halt' }
  /** A provider's circuit breaker changed state. */
  breaker_state: { readonly runId: string; readonly provider: string; readonly from: 'closed' | 'open' | 'half-open'; readonly to: 'closed' | 'open' | 'half-open'; readonly failures: number }
  /** The outcome of one logical tool call's argument validation and retries. */
  tool_retry_outcome: {
    /** The run this event belongs to (as on its result and error). */
    readonly runId: string
    readonly tool: string
    readonly outcome: 'no_retry' | 'success' | 'redundant' | 'exhausted' | 'llm_gave_up' | 'fabricated_id_on_retry'
    readonly retryCount: number
    readonly agent: string
  }
  /** The agent's output fallback tier 2 (`fallback(error, rawOutput)`) is used. */
  output_fallback_triggered: { readonly runId: string; readonly kind: string; readonly reason: string }
  /** The agent's canned answer (tier 3) is used. */
  output_canned_used: { readonly runId: string; readonly kind: string; readonly reason: string }
  /** A progressive stream was aborted on a definite schema violation. */
  stream_aborted: { readonly runId: string; readonly attempt: number; readonly path: string; readonly reason: string; readonly consumedChars: number; readonly consumedShare: number | undefined }
  /** A listener threw; the run went on. */
  listener_error: { readonly runId: string; readonly event: string; readonly error: unknown }
  /**
   * A rule misbehaved: its `when`, `feedbackForLLM` or `delayMs` threw or gave something unusable
   * (the run went on with a safe default), or a matching rule's `then` was no Decision (`where:
   * 'then'`, the run fails with kind `invalid-rule`).
   */
  rule_error: { readonly runId: string; readonly attempt: number; readonly kind: string; readonly where: 'when' | 'then' | 'feedbackForLLM' | 'delayMs'; readonly error: unknown }
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
}

/** Name of an event. */
export type GateEventName = keyof GateEventMap

/** An event as carried by `events$`: its name plus its payload. */
export type GateEvent = { [K in GateEventName]: { readonly type: K } & GateEventMap[K] }[GateEventName]
