import type { Observable } from 'rxjs'
import { lazyObservable } from '../../events/lazy-observable.ts'
import type { StreamObserver } from '../../events/replay-buffer.ts'
import type { GateResult } from '../gate-result.ts'
import type { GateStreamEvent } from './gate-stream-event.ts'

/**
 * A running `gate.stream`: iterate it with `for await`, or subscribe to `observable`; `result`
 * settles with the accepted result or rejects with the `ReliabilityFailFastError`. Every consumer
 * sees every event from the start. The run starts at once; pass a `signal` to cancel it.
 */
export interface GateStream<T> extends EventStream<GateStreamEvent<T>, GateResult<T>> {}

/**
 * A running stream of events `E` that ends with a result `R` (a gate's stream, an agent's): iterate
 * it with `for await`, or subscribe to `observable`; `result` settles with the result or rejects
 * with the `ReliabilityFailFastError`. Every consumer sees every event from the start.
 */
export interface EventStream<E, R> extends AsyncIterable<E> {
  readonly result: Promise<R>
  /** The events as an rxjs Observable (errors with the fail-fast error); rxjs loads on its first use. */
  readonly observable: Observable<E>
}

/**
 * A replaying source of stream events: a `ReplayBuffer` (no rxjs on the gate's path) or an rxjs
 * `ReplaySubject`. Each subscriber gets every event from the start.
 */
export interface GateStreamSource<E> {
  subscribe(observer: StreamObserver<E>): (() => void) | { unsubscribe(): void }
}

/** Wraps the replaying event source and the result promise into an {@link EventStream} (a {@link GateStream} for a gate's). */
export function createGateStream<E, R>(source: GateStreamSource<E>, result: Promise<R>): EventStream<E, R> {
  const subscribe = (observer: StreamObserver<E>): (() => void) => {
    const subscription = source.subscribe(observer)
    return typeof subscription === 'function' ? subscription : () => subscription.unsubscribe()
  }
  const observable = lazyObservable(subscribe)
  return {
    result,
    observable,
    [Symbol.asyncIterator]: () => iterate(subscribe),
  }
}

function iterate<E>(subscribe: (observer: StreamObserver<E>) => () => void): AsyncIterator<E> {
  const queue: E[] = []
  let waiting: { resolve: (r: IteratorResult<E>) => void; reject: (e: unknown) => void } | undefined
  let finished = false
  let failure: { error: unknown } | undefined
  const unsubscribe = subscribe({
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
      unsubscribe()
      finished = true
      queue.length = 0
      return Promise.resolve({ value: undefined, done: true })
    },
  }
}
