import { abortReason, type AbortReasonOf } from '../../model/abort-reason.ts'
import { raceAbort } from '../../model/race-abort.ts'

// setTimeout fires at once for delays above 2^31 - 1 ms; longer waits are made of chunks.
const MAX_TIMER_MS = 2_147_483_647

/**
 * Waits `ms` (any finite length, also beyond setTimeout's 2^31 ms), rejecting with `reasonOf(signal)`
 * as soon as `signal` aborts. The timer never outlives an abort.
 */
export function sleep(ms: number, signal?: AbortSignal, reasonOf: AbortReasonOf = abortReason): Promise<void> {
  if (!(ms > 0)) return signal?.aborted === true ? raceAbort(Promise.resolve(), signal, undefined, reasonOf) : Promise.resolve()
  let timer: ReturnType<typeof setTimeout> | undefined
  const wait = new Promise<void>((resolve) => {
    let left = ms
    const tick = (): void => {
      if (left <= 0) return resolve()
      const step = Math.min(left, MAX_TIMER_MS)
      left -= step
      timer = setTimeout(tick, step)
    }
    tick()
  })
  return raceAbort(wait, signal, () => clearTimeout(timer), reasonOf)
}
