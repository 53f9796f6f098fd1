import type { ModelRequest } from './request.ts'

/**
 * Where a request whose `messages` is joined lazily (a retry over a long history: the base
 * messages and the tail, concatenated the first time someone reads them) keeps its parts. A
 * symbol, non-enumerable: a copy made from the request's property descriptors keeps it together
 * with the getter, and a spread copy (which reads `messages` once) drops it.
 */
export const LAZY_JOIN: unique symbol = Symbol('reliability-gate.join')

/** True for a request whose `messages` is joined lazily (see {@link LAZY_JOIN}). */
function isLazilyJoined(request: ModelRequest): boolean {
  return Object.hasOwn(request, LAZY_JOIN)
}

/**
 * A shallow copy of `request` with `signal` read through `signal` each time (the attempt's own
 * signal, made the first time a link or the provider reads it). A lazily joined request is copied
 * by its property descriptors, so it stays lazy and the copy costs the same for any history; any
 * other is copied by a spread. A frozen request gives a frozen copy.
 */
export function withSignalGetter<O>(request: ModelRequest, owner: O, read: (owner: O) => AbortSignal): ModelRequest {
  const copy = (isLazilyJoined(request) ? Object.defineProperties({}, Object.getOwnPropertyDescriptors(request)) : { ...request }) as ModelRequest
  new SignalSource(copy, owner, read as (owner: unknown) => AbortSignal)
  Object.defineProperty(copy, 'signal', READ_SIGNAL)
  return Object.isFrozen(request) ? Object.freeze(copy) : copy
}

/** Returns the object it is given: a class that extends it stamps that object. */
class Stamped {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the return override is what lets SignalSource stamp a plain object
    return target
  }
}

/**
 * Stamps a request copy with where its signal comes from, in private fields: invisible to
 * `Object.keys`, a spread, a deep comparison or reflection, and the copies keep one hidden class
 * (a symbol or WeakMap entry per copy measured 2-3x the cost of the copy itself).
 */
class SignalSource extends Stamped {
  readonly #owner: unknown
  readonly #read: (owner: unknown) => AbortSignal
  constructor(target: object, owner: unknown, read: (owner: unknown) => AbortSignal) {
    super(target)
    this.#owner = owner
    this.#read = read
  }

  /** The signal of a stamped request. */
  static signalOf(request: object): AbortSignal {
    const stamped = request as SignalSource
    return stamped.#read(stamped.#owner)
  }
}

// One getter for every such copy (no closure per request), and the copies share their hidden class.
const READ_SIGNAL: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: ModelRequest): AbortSignal {
    return SignalSource.signalOf(this)
  },
}
