/**
 * Calls user code (a guard, a tool's `execute`, an output fallback, the gate's fallback) and gives its result as a promise: a synchronous
 * throw becomes a rejection, so one `catch` handles both.
 */
export function callAsPromise<A, B, R>(fn: (a: A, b: B) => R | PromiseLike<R>, a: A, b: B): Promise<R> {
  try {
    return Promise.resolve(fn(a, b))
  } catch (error) {
    return Promise.reject(error)
  }
}
