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
  /** Longest echo of the previous raw output in the tail, in characters. @default 4000 */
  readonly maxFeedbackChars?: number
  /** Longest echo of the previous raw output in the tail, in tokens (applied with `maxFeedbackChars`). */
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
  /** Per-attempt provider timeout in ms; none by default. */
  readonly timeoutMs?: number
}
