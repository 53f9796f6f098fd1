import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'

/**
 * What a link of the attempt chain sees: one readonly object per attempt. A link that changes the
 * request passes a changed copy to `next(request)`; the links after it see that copy as `request`.
 */
export interface AttemptContext {
  /** Unique per `gate.run` (an agent run keeps one across its model turns). */
  readonly runId: string
  /** Number of this attempt within the run, from 1. */
  readonly attempt: number
  /**
   * The request about to be sent: the base request followed by the ephemeral retry tail, with the
   * run's `signal` (and the deadline's, when a timeout is set). Never mutate it.
   */
  readonly request: ModelRequest
  /** The caller's request without the tail: the stable key for caches and routing. */
  readonly baseRequest: ModelRequest
  /** Display name of the provider this attempt calls. */
  readonly provider: string
  /** Position of that provider in the failover order. */
  readonly providerIdx: number
  /** Model asked for (the provider's own, else the gate's, else the request's). */
  readonly model: string | undefined
  /** Caller-supplied metadata of the run (`run(request, { metadata })`), for routing and logs. */
  readonly metadata: Readonly<Record<string, unknown>> | undefined
  /** The agent's model turn this attempt belongs to (from 1); `undefined` for a gate used alone. */
  readonly turn: number | undefined
}

/** What a link hands back: the response of this attempt (read it, replace it, or make one up). */
export interface AttemptResult {
  readonly response: ModelResponse
}

/**
 * Runs the rest of the chain, with a changed copy of the request when one is given. Resolves with
 * the attempt's response or rejects with the failure of a later link or of the provider. May be
 * called at most once per link and attempt.
 */
export type Next = (request?: ModelRequest) => Promise<AttemptResult>

/**
 * A link of the attempt chain, the same shape as the built-in policies (rate limit, breaker,
 * budget, deadline). Call `next()` to go on, return `{ response }` without calling it to
 * short-circuit (the response is validated like any other), or throw a `ProviderError` to fail the
 * attempt with its kind (rules then decide, as for a provider failure).
 *
 * @example
 * const redact: Middleware = function redact(ctx, next) {
 *   return next({ ...ctx.request, messages: ctx.request.messages.map((m) => ({ ...m, content: m.content.replace(EMAIL, '[email]') })) })
 * }
 * createGate({ providers, middleware: [redact] })
 */
export type Middleware = (ctx: AttemptContext, next: Next) => Promise<AttemptResult>
