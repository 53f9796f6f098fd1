import type { ErrorKind } from '../model/error-kind.ts'
import type { Message } from '../model/message.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'
import type { Usage } from '../model/usage.ts'
import type { ValidationIssue } from '../validation/issue.ts'
import type { ValidationStage } from '../validation/validation-failure.ts'

/** When a rule is evaluated: before an attempt (PreCheck) or after it (PostDecide). */
export type Phase = 'pre-check' | 'post-decide'

/** The validation error of the current attempt as rules see it. */
export interface ScopeValidationError {
  readonly message: string
  readonly stage: ValidationStage
  readonly path?: string | undefined
  readonly issues: readonly ValidationIssue[]
  readonly rawOutput?: string | undefined
  /** A digest of the full issue set (`ValidationFailure.signature`): equal only for identical failures. */
  readonly signature?: string | undefined
}

/**
 * A readonly snapshot of the gate's state handed to every rule and feedback function.
 * Adding a field never breaks a rule: rules read what they need.
 */
export interface ReliabilityScope {
  readonly phase: Phase
  /**
   * Attempts made so far, as in agentfootprint: 0 at PreCheck before the first provider call, 1 at
   * PostDecide after it (events and attempt logs number that attempt 1 too).
   */
  readonly attempt: number
  /** The run's id, as on its events, result and error. */
  readonly runId: string
  /** The caller's base request (never the retry request). */
  readonly request: ModelRequest
  /**
   * The request of this attempt (PreCheck: of the attempt about to start) without its ephemeral
   * tail: the caller's with the provider's model and whatever rules adjusted (a trimmed history, a
   * lower `maxTokens`, another model). Absent in a scope built by hand: read `request` then.
   */
  readonly attemptRequest?: ModelRequest | undefined
  /** The ephemeral retry tail of this attempt (the echo of the previous answer and its feedback); empty on a first attempt. */
  readonly attemptTail?: readonly Message[] | undefined
  readonly providerIdx: number
  readonly providerName: string
  /** agentfootprint's name of `providerName`. Absent in a scope built by hand. */
  readonly currentProvider?: string
  readonly providersCount: number
  readonly canSwitchProvider: boolean
  /** agentfootprint's: whether the gate has a `fallback`, for a rule choosing between `fallback` and `fail-fast`. Absent in a scope built by hand. */
  readonly hasFallback?: boolean
  /**
   * agentfootprint's: attempts made so far on each provider, by name (PostDecide: this attempt
   * included), for a rule that fails over after n attempts on one provider. Absent in a scope built by hand.
   */
  readonly attemptsPerProvider?: Readonly<Record<string, number>>
  /** The response of this attempt (PostDecide only, absent when the call failed). */
  readonly response?: ModelResponse | undefined
  /** The error thrown by the provider call of this attempt. */
  readonly error?: unknown
  readonly errorKind: ErrorKind
  /** Provider latency of this attempt in ms (0 in PreCheck). */
  readonly latencyMs: number
  readonly validationError?: ScopeValidationError | undefined
  /** Messages of every validation failure so far, oldest first (one bounded line each). */
  readonly validationErrorHistory: readonly string[]
  /**
   * The signature of every validation failure so far, in the order of `validationErrorHistory`: a
   * digest of each failure's full issue set, which stuck-loop detection compares (two failures with
   * the same first issues but different others have the same message, not the same signature).
   * Absent in a scope built by hand: `lastNValidationErrorsMatch` then compares the messages.
   */
  readonly validationErrorSignatures?: readonly string[]
  /** Usage summed over every attempt so far, failed ones included. */
  readonly usage: Usage
  /** Uncached input tokens summed over every attempt so far, failed ones included. */
  readonly cumulativeInputTokens: number
  /** Output tokens summed over every attempt so far, failed ones included. */
  readonly cumulativeOutputTokens: number
  /** Cost in USD summed over every attempt so far, failed ones included (0 without a price). */
  readonly cumulativeCostUsd: number
  /** Cost in USD of the latest attempt that got an answer (0 before any): an estimate of the next one. */
  readonly lastAttemptCostUsd: number
  /**
   * Answered attempts so far whose cost could not be priced (an unknown model, a price function
   * that failed, no pricing while a budget needs it). They count as 0 in `costUsd`; a budget rule
   * with `onUnpriced: 'fail'` stops the run on them.
   */
  readonly unpricedAttempts: number
  /** Time since `gate.run` started, in ms. */
  readonly elapsedMs: number
  /**
   * Failures of a transient kind (`TRANSIENT_KINDS`: rate limit, 5xx, timeout, network, malformed
   * response) so far in this run, this attempt's included.
   */
  readonly transientFailures: number
  /** Retry-after hint of the last provider error, in ms. */
  readonly retryAfterMs?: number | undefined
  /**
   * At PostDecide, the attempt's validated value (the output schema's type; the answer's text
   * without a schema); `undefined` when the answer failed validation or there was none. A business
   * rule ("refund at most $100") reads it instead of parsing `response.content` again.
   */
  readonly value?: unknown
}
