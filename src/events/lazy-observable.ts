import type { Observable, Observer, Subscription } from 'rxjs'
import { loadRxjs } from './load-rxjs.ts'
import type { Produce, StreamObserver } from './replay-buffer.ts'
import { reportUnhandled } from './report-unhandled.ts'

type SubscribeArg<T> = Partial<Observer<T>> | ((value: T) => void) | null | undefined

// rxjs looks an interop observable up under `Symbol.observable` when the runtime defines it, else '@@observable'.
const OBSERVABLE_KEY: symbol | undefined = (Symbol as { observable?: symbol }).observable

/**
 * An rxjs `Observable` that costs nothing until it is used: the object exists at once, rxjs loads on
 * the first `subscribe`, `pipe` or `forEach` (see `loadRxjs`), and every call is then delegated to a
 * real rxjs Observable over `produce`, created once.
 *
 * Where rxjs cannot load synchronously (browser bundles, workerd), `subscribe` and the interop hooks
 * (`Symbol.observable`, `'@@observable'`) still work without it, so `from(events$)` works everywhere;
 * only `pipe`, `forEach` and `lift` need rxjs itself and say so.
 *
 * It is not `instanceof Observable` (rxjs's `isObservable` and `from` accept it); a getter creating a
 * real one instead would load rxjs as soon as a gate or an agent is built.
 */
export function lazyObservable<T>(produce: Produce<T>): Observable<T> {
  return new LazyObservable(produce) as unknown as Observable<T>
}

class LazyObservable<T> {
  readonly #produce: Produce<T>
  #real: Observable<T> | undefined

  constructor(produce: Produce<T>) {
    this.#produce = produce
    if (OBSERVABLE_KEY !== undefined) (this as unknown as Record<symbol, () => unknown>)[OBSERVABLE_KEY] = () => this
  }

  subscribe(observerOrNext?: SubscribeArg<T>): Subscription {
    const real = this.#rxjs()
    if (real !== undefined) return real.subscribe(observerOrNext as Partial<Observer<T>>)
    return subscribeWithoutRxjs(this.#produce, observerOrNext) as Subscription
  }

  pipe(...operators: unknown[]): unknown {
    return (this.#need('pipe').pipe as (...ops: unknown[]) => unknown)(...operators)
  }

  forEach(next: (value: T) => void): Promise<void> {
    return this.#need('forEach').forEach(next)
  }

  lift(operator: unknown): unknown {
    return (this.#need('lift') as unknown as { lift(op: unknown): unknown }).lift(operator)
  }

  '@@observable'(): this {
    return this
  }

  #rxjs(): Observable<T> | undefined {
    if (this.#real !== undefined) return this.#real
    const rxjs = loadRxjs()
    if (rxjs === undefined) return undefined
    const produce = this.#produce
    this.#real = new rxjs.Observable<T>((subscriber) => produce(subscriber))
    return this.#real
  }

  #need(method: string): Observable<T> {
    const real = this.#rxjs()
    if (real !== undefined) return real
    throw new TypeError(`${method}() needs rxjs, which cannot be loaded synchronously in this runtime: use rxjs's from(observable).${method}(...) instead`)
  }
}

interface BareSubscription {
  closed: boolean
  unsubscribe(): void
}

/** rxjs's subscriber contract without rxjs: partial observers, closed after the end, callbacks contained. */
function subscribeWithoutRxjs<T>(produce: Produce<T>, arg: SubscribeArg<T>): BareSubscription {
  const target: Partial<Observer<T>> = typeof arg === 'function' ? { next: arg } : (arg ?? {})
  let teardown: (() => void) | undefined
  const subscription: BareSubscription = {
    closed: false,
    unsubscribe() {
      if (subscription.closed) return
      subscription.closed = true
      teardown?.()
    },
  }
  const call = (fn: (() => void) | undefined): void => {
    try {
      fn?.()
    } catch (error) {
      reportUnhandled(error)
    }
  }
  const observer: StreamObserver<T> = {
    next: (value) => {
      if (!subscription.closed) call(target.next && (() => target.next?.(value)))
    },
    error: (error) => {
      if (subscription.closed) return
      subscription.unsubscribe()
      if (target.error === undefined) reportUnhandled(error)
      else call(() => target.error?.(error))
    },
    complete: () => {
      if (subscription.closed) return
      subscription.unsubscribe()
      call(target.complete && (() => target.complete?.()))
    },
  }
  const stop = produce(observer)
  // The producer may have ended the subscription synchronously (a replay of an ended stream).
  if (subscription.closed) stop()
  else teardown = stop
  return subscription
}
