import type { ErrorTemplate } from '../validation/feedback/error-template.ts'
import type { Backoff, BackoffOptions } from './backoff.ts'

/**
 * The failure categories `retryOn` may name. These are pyconveyor's snake_case names, kept as they
 * are because they are its step-config boundary (`retry_on: [parse, schema]`); inside the library
 * they map to kebab-case kinds (`http_error` retries `http-5xx` and `network` under the rule kind
 * `http-error-retry`).
 */
export type RetryOnCategory = 'parse' | 'schema' | 'timeout' | 'http_error' | 'rate_limit'

/** Every {@link RetryOnCategory}. */
export const RETRY_ON_CATEGORIES: readonly RetryOnCategory[] = Object.freeze(['parse', 'schema', 'timeout', 'http_error', 'rate_limit'])

/** The default of `retryOn`, as in pyconveyor: bad output is retried, transport failures only when listed. */
export const DEFAULT_RETRY_ON: readonly RetryOnCategory[] = Object.freeze(['parse', 'schema'])

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
  /**
   * Which failures are retried; transport ones (`timeout`, `http_error`, `rate_limit`) wait with
   * backoff, honouring `retry-after`, and are retried only when listed.
   * @default ['parse', 'schema']
   */
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
  /**
   * Stuck-loop detection, as in `strictOutputRules`: fail fast with kind `schema-stuck-loop` once
   * this many validation failures in a row have the identical message. Off by default, because a
   * pyconveyor step makes its `maxAttempts` attempts whatever the errors repeat.
   * @default false
   */
  readonly stuckAfter?: number | false
  /** Delay schedule of transport retries, or options of the default exponential backoff with jitter. */
  readonly backoff?: Backoff | BackoffOptions
}
