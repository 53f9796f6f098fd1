import type { ErrorTemplate } from '../validation/feedback/error-template.ts'
import type { Backoff, BackoffOptions } from './backoff.ts'

/** The failure categories `retryOn` may name (pyconveyor's names). */
export type RetryOnCategory = 'parse' | 'schema' | 'timeout' | 'http_error' | 'rate_limit'

/** Every {@link RetryOnCategory}, the default of `retryOn`. */
export const RETRY_ON_CATEGORIES: readonly RetryOnCategory[] = Object.freeze(['parse', 'schema', 'timeout', 'http_error', 'rate_limit'])

/** Options of `strictOutput()`: pyconveyor's step config, camel-cased. */
export interface StrictOutputOptions {
  /**
   * Whether the step has an output schema. `strictOutput` cannot see the gate's schema, so a
   * free-text step says so here; it changes the defaults of `maxAttempts` and `errorFeedback`.
   * @default true
   */
  readonly hasSchema?: boolean
  /** Total attempts, the first included. @default 3 with a schema, else 1 */
  readonly maxAttempts?: number
  /** Send validation feedback with a retry; `false` resends the base request unchanged. @default true with a schema */
  readonly errorFeedback?: boolean
  /** A line appended to every feedback message (and the `retry_hint` template variable). */
  readonly retryHint?: string
  /** Which failures are retried; transport ones wait with backoff, honouring `retry-after`. @default every category */
  readonly retryOn?: readonly RetryOnCategory[]
  /**
   * `false` is partial mode: an answer that parses but fails its schema is returned as the parsed
   * value with the issues as `warnings`, never retried. Parse errors still retry per `retryOn`.
   * @default true
   */
  readonly schemaStrict?: boolean
  /** Cap on the echoed previous output, in o200k_base tokens (an estimate for non-OpenAI models). @default 4000 */
  readonly maxFeedbackTokens?: number
  /** Replaces the built-in feedback: a function of the variables or a Jinja-style string. */
  readonly errorTemplate?: ErrorTemplate
  /** Delay schedule of transport retries, or options of the default exponential backoff with jitter. */
  readonly backoff?: Backoff | BackoffOptions
}
