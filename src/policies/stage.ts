import type { ModelResponse } from '../model/response.ts'
import type { AttemptContext } from './middleware.ts'

/**
 * A link the library writes itself (the deadline, the check, the policies, the meter), in halves
 * around the rest of the chain: every `enter` in order, the rest (the user's middleware, the
 * provider), then every `leave` (or `fail`) in reverse order. Stages hand each other the bare
 * response; only a user's {@link Middleware} sees `{ response }`. `T` is the stage's token of an
 * entered attempt; `A` the attempt it reads (a `ChainAttempt`: the gate's carries the run).
 */
export interface Stage<T = unknown, A extends AttemptContext = AttemptContext> {
  /** Named in errors and traces. */
  readonly name: string
  /** True for a stage that may settle the attempt before the rest answers, through `attempt.stop` (the deadline). */
  readonly stops?: boolean
  /**
   * Before the rest of the chain: the stage's token, or a promise of it. A throw or a rejection
   * fails the attempt (the stages entered before it hear `fail`; the rest never runs).
   */
  enter?(attempt: A): T | PromiseLike<T>
  /** The rest of the chain never ran after `enter` answered (the attempt settled meanwhile): give back what it took. */
  undo?(attempt: A, token: T): void
  /** The rest answered: the response to hand outward (or a promise of it); a throw fails the attempt. */
  leave?(attempt: A, token: T, response: ModelResponse): ModelResponse | PromiseLike<ModelResponse>
  /** The rest failed with `error`, or the attempt was stopped: heard (and awaited unless stopped); the attempt fails with `error` whatever it does. */
  fail?(attempt: A, token: T, error: unknown): unknown
}
