import type { ModelRequest } from './request.ts'

/**
 * Where a request whose `messages` is joined lazily (a retry over a long history: the base
 * messages and the tail, concatenated the first time someone reads them) keeps its parts. A
 * symbol, non-enumerable: a copy made from the request's property descriptors keeps it together
 * with the getter, and a spread copy (which reads `messages` once) drops it.
 */
export const LAZY_JOIN: unique symbol = Symbol('reliability-gate.join')

/** True for a request whose `messages` is joined lazily (see {@link LAZY_JOIN}). */
export function isLazilyJoined(request: ModelRequest): boolean {
  return Object.hasOwn(request, LAZY_JOIN)
}

/**
 * A shallow copy of `request` with `signal` read through `signal` each time (the attempt's own
 * signal, made the first time a link or the provider reads it). A lazily joined request is copied
 * by its property descriptors, so it stays lazy and the copy costs the same for any history; any
 * other is copied by a spread. A frozen request gives a frozen copy.
 */
export function withSignalGetter<O>(request: ModelRequest, owner: O, read: (owner: O) => AbortSignal): ModelRequest {
  const copy = (isLazilyJoined(request) ? Object.defineProperties({}, Object.getOwnPropertyDescriptors(request)) : { ...request }) as SignalCopy
  // Kept off the enumerable properties: a copy of the request (a spread, a deep comparison) sees a plain `signal`.
  Object.defineProperty(copy, OWNER, { value: owner })
  Object.defineProperty(copy, READ, { value: read })
  Object.defineProperty(copy, 'signal', READ_SIGNAL)
  return Object.isFrozen(request) ? Object.freeze(copy) : copy
}

const OWNER: unique symbol = Symbol('reliability-gate.signal-owner')
const READ: unique symbol = Symbol('reliability-gate.signal-read')
type SignalCopy = ModelRequest & { [OWNER]: unknown; [READ]: (owner: unknown) => AbortSignal }
// One getter for every such copy (no closure per request), and the copies share their hidden class.
const READ_SIGNAL: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: SignalCopy): AbortSignal {
    return this[READ](this[OWNER])
  },
}
