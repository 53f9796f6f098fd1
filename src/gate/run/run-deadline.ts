import { ProviderError } from '../../model/provider-error.ts'

// The longest timer Node keeps: a longer one fires after 1 ms.
const MAX_TIMER_MS = 2 ** 31 - 1

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
 * of kind `timeout` when time is up (or with what `expire` makes, for a bound that is not the run's:
 * a session's load), with the caller's reason when the caller aborts first.
 */
export function runDeadline(ms: number, outer: AbortSignal | undefined, expire?: () => unknown): RunDeadline {
  // Checked where the timer is made, whoever checked it before: a value read again from a getter after its
  // check (or never checked) must not become a timer Node fires at once (2^31 ms and more) or never.
  if (!(Number.isInteger(ms) && ms >= 1 && ms <= MAX_TIMER_MS)) {
    throw new RangeError(`runTimeoutMs must be whole milliseconds from 1 to ${MAX_TIMER_MS}, got ${String(ms)}`)
  }
  const controller = new AbortController()
  let expired = false
  const onOuter = (): void => controller.abort((outer as AbortSignal).reason)
  if (outer?.aborted === true) onOuter()
  else outer?.addEventListener('abort', onOuter, { once: true })
  const timer = setTimeout(() => {
    expired = true
    controller.abort(expire === undefined ? new ProviderError(`the run did not finish within runTimeoutMs (${ms} ms)`, { kind: 'timeout' }) : expire())
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

/**
 * The deadline of an agent run handed to each of its gate calls: they read its signal and whether it
 * expired (so a gate call it stops fails as `run-timeout`), and never clear it (the agent run does,
 * when it settles). Keyed by the options object of the gate call. @internal
 */
const sharedDeadlines = new WeakMap<object, RunDeadline>()

/** Hands `deadline` to the gate run made with `options` (see {@link sharedDeadline}). @internal */
export function shareDeadline(options: object, deadline: RunDeadline): void {
  sharedDeadlines.set(options, {
    signal: deadline.signal,
    get expired() {
      return deadline.expired
    },
    clear: keep,
  })
}

/** The deadline an agent run handed to the gate run made with `options`, if any. @internal */
export function sharedDeadline(options: object): RunDeadline | undefined {
  return sharedDeadlines.get(options)
}

function keep(): void {}
