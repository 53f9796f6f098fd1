import type { ErrorTemplate } from '../validation/feedback/error-template.ts'
import type { ReliabilityRule } from './rule.ts'

/** How feedback of successive retries is kept in the request. */
export type FeedbackMode = 'latest' | 'accumulate'

/**
 * The reliability options shared by `createGate`, `agent.reliability()` and `strictOutput()`:
 * rules plus how feedback is built.
 */
export interface ReliabilityConfig {
  /** Evaluated before every attempt; only `fail-fast` stops. */
  readonly preCheck?: readonly ReliabilityRule[]
  /** Evaluated after every attempt; the first match decides. */
  readonly postDecide?: readonly ReliabilityRule[]
  /**
   * `latest` keeps only the newest feedback pair in the retry request (bounded size); `accumulate`
   * keeps every earlier pair.
   * @default 'latest'
   */
  readonly feedbackMode?: FeedbackMode
  /**
   * Send feedback with a retry. `false` resends the base request unchanged (blind retry).
   * @default true
   */
  readonly errorFeedback?: boolean
  /**
   * Longest retry tail in characters: the echo of the previous raw output and the feedback together
   * (for a tool-argument retry, the echoed call and the feedback). The feedback is kept whole first,
   * the echo gets the rest; whatever is cut ends with `[…truncated for length…]`. Each retry's pair is
   * bounded (`accumulate` keeps one bounded pair per retry). @default 4000
   */
  readonly maxFeedbackChars?: number
  /**
   * Longest retry tail in tokens (o200k_base with the optional `gpt-tokenizer`, UTF-8 bytes without),
   * applied with `maxFeedbackChars`.
   */
  readonly maxFeedbackTokens?: number
  /** Replaces the built-in validation feedback: a function of the variables or a Jinja-style template. */
  readonly errorTemplate?: ErrorTemplate
  /**
   * Run the deterministic JSON repair stage before a parse failure counts. A repaired value is
   * accepted only if it then passes the schema.
   * @default true
   */
  readonly repair?: boolean
  /** A line appended to every built-in feedback message. */
  readonly retryHint?: string
  /** Safety cap on attempts per run, whatever the rules decide. @default 10 */
  readonly maxAttempts?: number
  /**
   * Deadline of each attempt in ms, all of it: rate limit, breaker and budget waits, the provider
   * call or stream, and validation (an async schema). Past it the attempt fails with kind `timeout`.
   * None by default.
   */
  readonly timeoutMs?: number
  /**
   * Deadline of a whole run, in ms: every attempt, retry wait, feedback function and fallback
   * included. Past it the run fails with kind `run-timeout` (no provider call starts after).
   */
  readonly runTimeoutMs?: number
}
