import { runDeadline, shareDeadline, sharedDeadline } from '../../gate/run/run-deadline.ts'

/**
 * One host call's run deadline (the middleware's `runTimeoutMs`), started before its prompt guards:
 * the guards and the gate's run end by it, as an Agent run's input guards and model calls do.
 * Without a `runTimeoutMs` it is the host's own signal and nothing more.
 */
export interface HostDeadline {
  /** The signal everything of the call waits under: the host's, and the deadline's when one is set. */
  readonly signal: AbortSignal | undefined
  /** True once the deadline itself fired (the call then ends `run-timeout`, not `aborted`). */
  late(): boolean
  /** Hands the deadline to the gate run made with `options` (its own `runTimeoutMs` is not started again). */
  bind<O extends object>(options: O): O
  /** Clears the timer: called when the host call settles. */
  clear(): void
}

/** The deadline of one host call of `ms` (none when `undefined`) over the host's `signal`. */
export function hostDeadline(ms: number | undefined, signal: AbortSignal | undefined): HostDeadline {
  if (ms === undefined) return { signal, late: () => false, bind: (options) => options, clear: () => undefined }
  const deadline = runDeadline(ms, signal)
  return {
    signal: deadline.signal,
    late: () => deadline.expired,
    bind: (options) => {
      shareDeadline(options, deadline)
      return options
    },
    clear: deadline.clear,
  }
}

/**
 * `options`, under the host call's deadline handed to `from` (by {@link HostDeadline.bind}): the
 * deadline is keyed by the options object, so a copy made for a re-ask or a stream (`{ ...from, ... }`)
 * would start the gate's own `runTimeoutMs` again instead of ending with the call's.
 */
export function sameDeadline<O extends object>(from: object, options: O): O {
  const deadline = sharedDeadline(from)
  if (deadline !== undefined) shareDeadline(options, deadline)
  return options
}
