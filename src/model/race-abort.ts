import { abortReason, type AbortReasonOf } from './abort-reason.ts'

/**
 * Settles like `work`, or rejects as soon as `signal` aborts, whichever comes first: the one race
 * of the library between work and cancellation. The listener is registered `{ once: true }` and
 * removed when `work` settles, so a long-lived signal collects no listeners. `onAbort` runs when
 * the signal wins (to clear a timer, close an iterator). Work that ignores its signal can therefore
 * never hang the caller; its late result is dropped. The rejection is the gate's typed abort error
 * by default (`reasonOf` picks another, e.g. the signal's own reason for a provider).
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined, onAbort?: () => void, reasonOf: AbortReasonOf = abortReason): Promise<T> {
  if (signal === undefined) return work
  if (signal.aborted) {
    onAbort?.()
    work.catch(ignore)
    return Promise.reject(reasonOf(signal))
  }
  return new Promise<T>((resolve, reject) => {
    const aborted = (): void => {
      onAbort?.()
      work.catch(ignore)
      reject(reasonOf(signal))
    }
    signal.addEventListener('abort', aborted, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', aborted)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', aborted)
        reject(error)
      },
    )
  })
}

function ignore(): void {}
