import { Observable, type ReplaySubject } from 'rxjs'
import type { GateResult } from '../gate-result.ts'
import type { GateStreamEvent } from './gate-stream-event.ts'

/**
 * A running `gate.stream`: iterate it with `for await`, or subscribe to `observable`; `result`
 * settles with the accepted result or rejects with the `ReliabilityFailFastError`. Every consumer
 * sees every event from the start. The run starts at once; pass a `signal` to cancel it.
 */
export interface GateStream<T> extends AsyncIterable<GateStreamEvent<T>> {
  readonly result: Promise<GateResult<T>>
  /** The events as an rxjs Observable (errors with the fail-fast error). */
  readonly observable: Observable<GateStreamEvent<T>>
  /** Same as `observable`. */
  toObservable(): Observable<GateStreamEvent<T>>
}

/** Wraps the event subject and the result promise into a {@link GateStream}. */
export function createGateStream<T>(subject: ReplaySubject<GateStreamEvent<T>>, result: Promise<GateResult<T>>): GateStream<T> {
  const observable = subject.asObservable()
  return {
    result,
    observable,
    toObservable: () => observable,
    [Symbol.asyncIterator]: () => iterate(observable),
  }
}

function iterate<T>(source: Observable<GateStreamEvent<T>>): AsyncIterator<GateStreamEvent<T>> {
  const queue: GateStreamEvent<T>[] = []
  let waiting: { resolve: (r: IteratorResult<GateStreamEvent<T>>) => void; reject: (e: unknown) => void } | undefined
  let finished = false
  let failure: { error: unknown } | undefined
  const subscription = source.subscribe({
    next(event) {
      if (waiting !== undefined) {
        const w = waiting
        waiting = undefined
        w.resolve({ value: event, done: false })
      } else queue.push(event)
    },
    error(error: unknown) {
      failure = { error }
      if (waiting !== undefined) {
        const w = waiting
        waiting = undefined
        w.reject(error)
      }
    },
    complete() {
      finished = true
      if (waiting !== undefined) {
        const w = waiting
        waiting = undefined
        w.resolve({ value: undefined, done: true })
      }
    },
  })
  return {
    next() {
      const event = queue.shift()
      if (event !== undefined) return Promise.resolve({ value: event, done: false })
      if (failure !== undefined) return Promise.reject(failure.error)
      if (finished) return Promise.resolve({ value: undefined, done: true })
      return new Promise((resolve, reject) => {
        waiting = { resolve, reject }
      })
    },
    return() {
      // Leaving the loop stops this consumer only; the run goes on (cancel it with the signal).
      subscription.unsubscribe()
      finished = true
      queue.length = 0
      return Promise.resolve({ value: undefined, done: true })
    },
  }
}
