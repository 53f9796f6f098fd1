import { ProviderError } from '../../model/provider-error.ts'
import type { AttemptResult, Middleware } from '../middleware.ts'
import { abortReason } from '../../model/abort-reason.ts'
import { raceAbort } from '../../model/race-abort.ts'
import { withSignal } from './with-signal.ts'

/**
 * The deadline policy: the rest of the attempt (user links and the provider call) must answer
 * within `timeoutMs`. The links after it receive a signal that aborts on the timeout (with a
 * `ProviderError` of kind `timeout`) or when the run's own signal aborts; the attempt settles at
 * once either way, even if the provider ignores its signal.
 */
export function deadline(timeoutMs: number): Middleware {
  return function deadline(ctx, next) {
    const outer = ctx.request.signal
    const controller = new AbortController()
    const onOuter = (): void => controller.abort(abortReason(outer as AbortSignal))
    if (outer?.aborted === true) onOuter()
    else outer?.addEventListener('abort', onOuter, { once: true })
    const timer = setTimeout(() => {
      controller.abort(new ProviderError(`provider "${ctx.provider}" did not answer within ${timeoutMs} ms`, { kind: 'timeout', provider: ctx.provider }))
    }, timeoutMs)
    const done = (): void => {
      clearTimeout(timer)
      outer?.removeEventListener('abort', onOuter)
    }
    let work: Promise<AttemptResult>
    try {
      work = next(withSignal(ctx.request, controller.signal))
    } catch (error) {
      work = Promise.reject(error)
    }
    const raced = raceAbort(work, controller.signal)
    raced.then(done, done)
    return raced
  }
}
