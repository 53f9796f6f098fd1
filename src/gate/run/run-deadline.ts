import { ProviderError } from '../../model/provider-error.ts'

/** A run's own deadline (`runTimeoutMs`): a signal that aborts when the caller's does or when time is up. */
export interface RunDeadline {
  readonly signal: AbortSignal
  /** True once the deadline itself fired (not the caller's signal). */
  readonly expired: boolean
  /** Clears the timer and the listener on the caller's signal: called when the run settles. */
  clear(): void
}

/**
 * Starts a run deadline of `ms` over the caller's `signal`. The signal aborts with a `ProviderError`
 * of kind `timeout` when time is up, with the caller's reason when the caller aborts first.
 */
export function runDeadline(ms: number, outer: AbortSignal | undefined): RunDeadline {
  const controller = new AbortController()
  let expired = false
  const onOuter = (): void => controller.abort((outer as AbortSignal).reason)
  if (outer?.aborted === true) onOuter()
  else outer?.addEventListener('abort', onOuter, { once: true })
  const timer = setTimeout(() => {
    expired = true
    controller.abort(new ProviderError(`the run did not finish within runTimeoutMs (${ms} ms)`, { kind: 'timeout' }))
  }, ms)
  return {
    signal: controller.signal,
    get expired() {
      return expired
    },
    clear() {
      clearTimeout(timer)
      outer?.removeEventListener('abort', onOuter)
    },
  }
}
