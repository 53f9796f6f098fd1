import type { AttemptContext } from './middleware.ts'

/** Hears a failure of a policy's store (a `StateLostError` among them), whatever the policy then does. */
export type OnStoreError = (error: unknown, ctx: AttemptContext) => void

/** The {@link OnStoreError} of a policy made without one: the failure is the policy's business alone. */
export const ignoreStoreError: OnStoreError = () => undefined

/** What an advisory policy does when its store cannot answer: it lets the attempt through with `through`, and tells `onStoreError`. */
export interface AdvisoryFallback<V> {
  readonly through: V
  readonly onStoreError: OnStoreError
}

/**
 * An advisory policy's call to its store (the rate limit, the breaker): its answer through
 * `verdict`; a throw or a rejection is heard by the fallback's `onStoreError` and lets the attempt
 * through (its `through`), since a store that cannot answer must not stop calls.
 */
export function askAdvisory<A, V>(ask: () => PromiseLike<A>, verdict: (answer: A) => V, fallback: AdvisoryFallback<V>, ctx: AttemptContext): V | Promise<V> {
  let pending: PromiseLike<A>
  try {
    pending = ask()
  } catch (error) {
    fallback.onStoreError(error, ctx)
    return fallback.through
  }
  return Promise.resolve(pending).then(verdict, (error: unknown) => {
    fallback.onStoreError(error, ctx)
    return fallback.through
  })
}
