import { abortReason } from './abort-reason.ts'

/** What a call into user code gave: its value, or what it threw, rejected with, or the abort that ended the wait. */
export type UserResult<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown; readonly aborted: boolean }

/**
 * Whether `value` is a thenable (a promise or anything with a callable `then`). A `then` getter
 * that throws makes it a thenable too: adopting it is what fails, and that failure is the call's.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false
  try {
    return typeof (value as { then?: unknown }).then === 'function'
  } catch {
    return true
  }
}

/**
 * The library's one boundary into user code (rules, feedback functions, schemas, listeners,
 * loggers, middleware, tools, guards, fallbacks, redact and price functions, stores, meters,
 * tracers). `call` runs at once; a throw is the failure; a thenable is adopted and awaited; the
 * wait ends when `signal` aborts (the failure is then the signal's abort error, `aborted: true`),
 * so user code that never settles cannot hold a run past its deadline or its signal. Never throws
 * and never rejects. Synchronous when the call answered synchronously: no promise is made for the
 * common case of a plain value.
 */
export function callUser<R>(call: () => R | PromiseLike<R>, signal?: AbortSignal): UserResult<R> | Promise<UserResult<R>> {
  let returned: R | PromiseLike<R>
  try {
    returned = call()
  } catch (error) {
    return { ok: false, error, aborted: false }
  }
  if (!isThenable(returned)) return { ok: true, value: returned }
  return settleUser(returned, signal)
}

/** {@link callUser} for a value user code already returned (a listener's, a middleware's). */
export function settleUser<R>(returned: R | PromiseLike<R>, signal?: AbortSignal): Promise<UserResult<R>> {
  let adopted: Promise<R>
  try {
    adopted = Promise.resolve(returned)
  } catch (error) {
    return Promise.resolve({ ok: false, error, aborted: false })
  }
  if (signal === undefined) return adopted.then(succeeded, failed)
  if (signal.aborted) {
    adopted.catch(ignore)
    return Promise.resolve({ ok: false, error: abortReason(signal), aborted: true })
  }
  return new Promise<UserResult<R>>((resolve) => {
    const onAbort = (): void => resolve({ ok: false, error: abortReason(signal), aborted: true })
    signal.addEventListener('abort', onAbort, { once: true })
    adopted.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve({ ok: true, value })
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        resolve({ ok: false, error, aborted: false })
      },
    )
  })
}

/**
 * Contains what a fire-and-forget callback returned (a listener, a logger): a rejected thenable is
 * handed to `onError` instead of becoming an unhandled rejection.
 */
export function containReturned(returned: unknown, onError: (error: unknown) => void): void {
  if (!isThenable(returned)) return
  settleUser(returned).then((r) => {
    if (r.ok) return
    try {
      onError(r.error)
    } catch {
      // The reporter itself failed: nothing is left to tell.
    }
  })
}

const succeeded = <R>(value: R): UserResult<R> => ({ ok: true, value })
const failed = (error: unknown): UserResult<never> => ({ ok: false, error, aborted: false })
function ignore(): void {}
