import { keepShape } from '../model/keep-shape.ts'
import { reportUnhandled } from './report-unhandled.ts'

/** The three callbacks a stream delivers to (rxjs's `Observer` shape). */
export interface StreamObserver<T> {
  next(value: T): void
  error(error: unknown): void
  complete(): void
}

/** Subscribes an observer; returns the function that stops the delivery. */
export type Produce<T> = (observer: StreamObserver<T>) => () => void

/**
 * A replaying event source without rxjs: every subscriber first receives every value pushed so far,
 * then the live ones, then the terminal `error` or `complete` (rxjs's `ReplaySubject` with an
 * unbounded buffer). An observer that throws never stops the producer or the other observers.
 *
 * @example
 * const events = new ReplayBuffer<number>()
 * events.next(1)
 * events.subscribe({ next: console.log, error: console.error, complete: () => {} }) // logs 1
 */
export class ReplayBuffer<T> {
  readonly #values: T[] = []
  #observers: readonly StreamObserver<T>[] = []
  #end: { readonly error: unknown } | 'complete' | undefined

  /** Buffers a value and delivers it to the current observers; ignored once ended. */
  next(value: T): void {
    if (this.#end !== undefined) return
    this.#values.push(value)
    for (const observer of this.#observers) deliver(() => observer.next(value))
  }

  /** Ends the stream with an error. */
  error(error: unknown): void {
    this.#finish({ error })
  }

  /** Ends the stream normally. */
  complete(): void {
    this.#finish('complete')
  }

  /** Replays the buffer to `observer`, then follows the live stream; returns the unsubscribe function. */
  subscribe(observer: StreamObserver<T>): () => void {
    for (const value of this.#values) {
      // An rxjs subscriber may close itself during the replay (`take(1)`): stop feeding it.
      if (isClosed(observer)) return noop
      deliver(() => observer.next(value))
    }
    if (isClosed(observer)) return noop
    const end = this.#end
    if (end !== undefined) {
      deliver(() => (end === 'complete' ? observer.complete() : observer.error(end.error)))
      return noop
    }
    // Copy-on-write: a delivery loop in progress keeps the list it started with.
    this.#observers = [...this.#observers, observer]
    let active = true
    return () => {
      if (!active) return
      active = false
      this.#observers = this.#observers.filter((o) => o !== observer)
    }
  }

  #finish(end: { readonly error: unknown } | 'complete'): void {
    if (this.#end !== undefined) return
    this.#end = end
    const observers = this.#observers
    this.#observers = []
    for (const observer of observers) deliver(() => (end === 'complete' ? observer.complete() : observer.error(end.error)))
  }
}

// A buffer that holds nothing, kept for its hidden class (see keepShape): no stream of a run outlives it.
keepShape(new ReplayBuffer<never>())

function deliver(call: () => void): void {
  try {
    call()
  } catch (error) {
    reportUnhandled(error)
  }
}

function isClosed(observer: object): boolean {
  return (observer as { closed?: unknown }).closed === true
}

function noop(): void {}
