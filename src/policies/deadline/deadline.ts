import { abortReason } from '../../model/abort-reason.ts'
import { ProviderError } from '../../model/provider-error.ts'
import { libraryLink, type Link } from '../link.ts'
import type { AttemptResult } from '../middleware.ts'
import { scheduleDeadline } from './deadline-queue.ts'
import { withSignal } from './with-signal.ts'

/**
 * The deadline policy, the outermost link: the rest of the attempt (the check, the policies and
 * their stores, the user's links, the provider call) must answer within `timeoutMs`. The links after
 * it receive a signal that aborts on the timeout (with a `ProviderError` of kind `timeout`) or when
 * the run's own signal aborts; the attempt settles at once either way, even if what it waits for
 * ignores its signal. A deadline that is met costs no timer of its own (see `scheduleDeadline`).
 */
export function deadline(timeoutMs: number): Link {
  return libraryLink(function deadline(ctx, next) {
    const outer = ctx.request.signal
    const controller = new AbortController()
    return new Promise<AttemptResult>((resolve, reject) => {
      const onOuter = (): void => {
        cancel()
        controller.abort((outer as AbortSignal).reason)
        reject(abortReason(outer as AbortSignal))
      }
      const cancel = scheduleDeadline(timeoutMs, () => {
        outer?.removeEventListener('abort', onOuter)
        const error = new ProviderError(`provider "${ctx.provider}" did not answer within ${timeoutMs} ms`, { kind: 'timeout', provider: ctx.provider })
        controller.abort(error)
        reject(error)
      })
      if (outer?.aborted === true) return onOuter()
      outer?.addEventListener('abort', onOuter, { once: true })
      let work: Promise<AttemptResult>
      try {
        work = next({ ...ctx, request: withSignal(ctx.request, controller.signal) })
      } catch (error) {
        work = Promise.reject(error)
      }
      // Whatever settles first wins; a late answer or failure of abandoned work is dropped here.
      work.then(
        (result) => {
          cancel()
          outer?.removeEventListener('abort', onOuter)
          resolve(result)
        },
        (error: unknown) => {
          cancel()
          outer?.removeEventListener('abort', onOuter)
          reject(error)
        },
      )
    })
  })
}
