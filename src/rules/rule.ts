import type { Message } from '../model/message.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ReliabilityScope } from './scope.ts'

/** What a rule decides. */
export type Decision = 'ok' | 'retry' | 'retry-other' | 'fallback' | 'fail-fast'

/**
 * A change to the next request that a rule asks for with its retry: a `maxTokens` (a whole number
 * above 0), the `messages` of the request (a non-empty array of messages, e.g. the history trimmed at
 * a user message), the `model`, the ephemeral retry `tail` (the echo of the previous answer and
 * its feedback), or a lower `outputMode`. Each applies to the next attempts of this run only: the caller's request and its
 * messages are never mutated, so a session's history is untouched. A field of the wrong shape is
 * ignored.
 */
export interface RequestAdjustment {
  readonly maxTokens?: number
  readonly messages?: readonly Message[]
  readonly model?: string
  readonly tail?: readonly Message[]
  /**
   * Send the next attempts in this lower output mode (`'json'` or `'prompt'`): the native schema
   * left out and the schema put in the system prompt (what the gate's own demotion after a
   * `schema-rejected` does).
   */
  readonly outputMode?: 'json' | 'prompt'
}

/** Feedback for the model: a string, or a (possibly async) function of the scope. */
export type FeedbackForLLM = string | ((scope: ReliabilityScope) => string | Promise<string>)

/**
 * A reliability rule: data plus a tiny pure predicate. The first rule whose `when` is true decides.
 *
 * @example
 * const retryTimeouts: ReliabilityRule = { when: (s) => s.errorKind === 'timeout', then: 'retry', kind: 'timeout-retry' }
 */
export interface ReliabilityRule {
  /** Whether this rule applies. A `when` that throws is treated as not matching. */
  readonly when: (scope: ReliabilityScope) => boolean
  /**
   * What to do when the rule matches. A PreCheck rule may also say `'continue'` (agentfootprint's verb
   * for "call the provider"): in PreCheck only `fail-fast` stops, anything else goes on. `'continue'` in
   * a PostDecide rule is refused (a PostDecide rule says what to do with an attempt that was made).
   */
  readonly then: Decision | 'continue'
  /** A stable identifier of the rule's reason; becomes the error `kind` on fail-fast. */
  readonly kind: string
  /** Human-readable label for logs and traces. */
  readonly label?: string
  /** Feedback appended (ephemerally) to the retry request. Defaults to the built-in validation prose. */
  readonly feedbackForLLM?: FeedbackForLLM
  /** Wait before the next attempt, in ms (a number or a function of the scope; a promise it answers is awaited, bounded by the run's signal). */
  readonly delayMs?: number | ((scope: ReliabilityScope) => number | PromiseLike<number>)
  /**
   * The rule can only match an attempt that failed (`errorKind !== 'ok'`). The gate then never asks
   * it about an accepted answer, and skips building the scope when no other rule needs one. Every
   * built-in rule says so.
   * @default false
   */
  readonly failuresOnly?: boolean
  /**
   * Changes the next request of a retry, e.g. a larger `maxTokens` after a cut answer. Given the
   * next attempt's request without its ephemeral tail, and that tail.
   */
  readonly adjustRequest?: (scope: ReliabilityScope, request: ModelRequest, tail: readonly Message[]) => RequestAdjustment
}
