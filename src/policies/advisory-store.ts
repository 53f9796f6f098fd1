import type { AttemptContext } from './middleware.ts'

/** Hears a failure of a policy's store (a `StateLostError` among them), whatever the policy then does. */
export type OnStoreError = (error: unknown, ctx: AttemptContext) => void

/** The {@link OnStoreError} of a policy made without one: the failure is the policy's business alone. */
export const ignoreStoreError: OnStoreError = () => undefined

/**
 * An advisory policy's call to its store (the rate limit, the breaker): its answer through
 * `verdict`; a throw or a rejection is heard by `onStoreError` and lets the attempt through
 * (`through`), since a store that cannot answer must not stop calls.
 */
export function askAdvisory<A, V>(
  ask: () => PromiseLike<A>,
  verdict: (answer: A) => V,
  through: V,
  onStoreError: OnStoreError,
  ctx: AttemptContext,
): V | Promise<V> {
  let pending: PromiseLike<A>
  try {
    pending = ask()
  } catch (error) {
    onStoreError(error, ctx)
    return through
  }
  return Promise.resolve(pending).then(verdict, (error: unknown) => {
    onStoreError(error, ctx)
    return through
  })
}
