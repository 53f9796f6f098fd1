import type { ErrorKind } from './error-kind.ts'

/**
 * Every `kind` the library gives a `ReliabilityFailFastError`, by name. Kinds are kebab case
 * everywhere; an error kind of the attempt (`scope.errorKind`) becomes the fail-fast kind when no
 * rule handles it. Rules you write may add kinds of their own.
 *
 * @example
 * if (isReliabilityFailFastError(error) && error.kind === FailFastKinds.SchemaStuckLoop) alertModelDrift()
 */
export const FailFastKinds = Object.freeze({
  /** `strictOutputRules` / `strictOutput`: validation still failing after the last allowed attempt. */
  SchemaRetryExhausted: 'schema-retry-exhausted',
  /**
   * `stuckLoopRule(n)`: the last `n` validation failures were identical; or a tool call's retry
   * repeated the rejected arguments of the attempt before it.
   */
  SchemaStuckLoop: 'schema-stuck-loop',
  /** The gate's safety cap on attempts (`maxAttempts`) was reached. */
  MaxAttempts: 'max-attempts',
  /** A rule asked for `retry-other` after the last provider. */
  NoMoreProviders: 'no-more-providers',
  /** The agent made `maxIterations` model turns without a final answer. */
  MaxIterations: 'max-iterations',
  /** A cost budget stopped the run (`maxCostRule`, `costBudget`, a shared budget). */
  BudgetExceeded: 'budget-exceeded',
  /** The gate's `fallback` threw. */
  FallbackFailed: 'fallback-failed',
  /** The gate's `fallback` answered something that failed validation. */
  FallbackInvalid: 'fallback-invalid',
  /** A rule decided `fallback` but the gate has none. */
  NoFallback: 'no-fallback',
  /** A matching rule turned out not to be a rule (its `then` is no Decision, its `kind` no string). */
  InvalidRule: 'invalid-rule',
  /** A stream failed after text was delivered: only `ok` or `fail-fast` can follow. */
  MidStreamNotRetryable: 'mid-stream-not-retryable',
  /** A provider's circuit breaker is open and no rule failed over or waited out its cooldown. */
  CircuitOpen: 'circuit-open',
  /** The run's signal aborted it. */
  Aborted: 'aborted',
  /** The run did not finish within its own deadline (`runTimeoutMs`). */
  RunTimeout: 'run-timeout',
  /** A session window's `estimateTokens` threw or answered no number of tokens: nothing was sent. */
  WindowFailed: 'window-failed',
  /** The answer was cut by the token limit (`truncatedFailFast`, or no rule handled it). */
  Truncated: 'truncated',
  /** The final answer failed its schema or JSON parsing and no rule handled it. */
  SchemaFail: 'schema-fail',
  /** Tool-call arguments failed their schema and no rule handled it. */
  ToolArgsInvalid: 'tool-args-invalid',
  /**
   * After a tool call's arguments were rejected, the model answered in prose instead of calling the
   * tool again, and again when re-asked with `toolChoice` pinned to that tool.
   */
  ToolCallAbandoned: 'tool-call-abandoned',
  /** The model refused to answer. */
  Refusal: 'refusal',
  /** The provider's answer had the wrong shape (an HTML page, an empty body). */
  MalformedResponse: 'malformed-response',
  /** The provider (or a shared rate limit) refused the call: 429. */
  RateLimit: 'rate-limit',
  /** The provider did not answer in time. */
  Timeout: 'timeout',
  /** The provider answered 5xx. */
  Http5xx: 'http-5xx',
  /** The connection failed. */
  Network: 'network',
  /**
   * The provider refused the credentials (401) or the permission (403): never retried on the same
   * provider; `failoverRule()` moves to the next one, which has credentials of its own.
   */
  Auth: 'auth',
  /**
   * The provider refused the request as too long for the model's window (OpenAI
   * `context_length_exceeded`, Anthropic "prompt is too long"), or the pre-flight estimate
   * (`contextWindowCheck`) did before any call. Never re-sent unchanged: `trimWindowRule`,
   * `dropRetryEchoRule`, `lowerMaxTokensRule` and `largerWindowRule` change the next request.
   */
  ContextOverflow: 'context-overflow',
  /**
   * The provider refused the structured-output schema (OpenAI "Invalid schema for
   * response_format", Anthropic's output format errors). Never re-sent unchanged.
   */
  SchemaRejected: 'schema-rejected',
  /** The provider refused a parameter or value the model does not take (OpenAI `unsupported_parameter`). */
  UnsupportedParameter: 'unsupported-parameter',
  /** The request's body was too large (413, Anthropic `request_too_large`). `dropRetryEchoRule` can shrink it. */
  PayloadTooLarge: 'payload-too-large',
  /** Anything else a provider threw. */
  Unknown: 'unknown',
  /**
   * The agent (or a host's loop) made no progress: the same call, the same tool error, two calls
   * alternating or the same text, still repeated after a nudge and a forced change (`noProgress`).
   */
  NoProgress: 'no-progress',
  /**
   * A durable run's port refused to go on: the replay asked for other steps than the journal holds
   * (the code changed between the crash and the resume), or a journal entry could not be read.
   */
  DurableJournal: 'durable-journal',
  /** A content guard escalated (input, history, a tool's arguments or result, the output, a stream): the run stops for a human. */
  GuardEscalated: 'guard-escalated',
  /** A content guard blocked the user's input, the loaded history or the final output: nothing was sent or delivered. */
  GuardBlocked: 'guard-blocked',
  /** A stored conversation moved on while the run was computed and the session has `onConflict: 'fail'`: nothing committed. */
  SessionConflict: 'session-conflict',
  /** The session store failed to commit the accepted exchange (unreachable, refused, timed out). */
  SessionStoreFailed: 'session-store-failed',
} as const)

/** A kind the library gives a `ReliabilityFailFastError` (see {@link FailFastKinds}). */
export type FailFastKind = (typeof FailFastKinds)[keyof typeof FailFastKinds]

/** Every {@link FailFastKind}. */
export const FAIL_FAST_KINDS: readonly FailFastKind[] = Object.freeze(Object.values(FailFastKinds))

// Every error kind but `ok` can end a run: the compiler keeps the two lists in step.
type Missing = Exclude<Exclude<ErrorKind, 'ok'>, FailFastKind>
const everyErrorKindIsAFailFastKind: [Missing] extends [never] ? true : Missing = true
void everyErrorKindIsAFailFastKind
