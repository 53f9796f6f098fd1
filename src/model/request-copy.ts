import { keepShape } from './keep-shape.ts'
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
 * A shallow copy of `request` sending `signal` (the attempt's own). A lazily joined request is
 * copied by its property descriptors, so it stays lazy and the copy costs the same for any history;
 * any other is copied by a spread. A frozen request gives a frozen copy.
 */
export function withSignal(request: ModelRequest, signal: AbortSignal): ModelRequest {
  if (isLazilyJoined(request)) {
    const parts: PropertyDescriptorMap = Object.getOwnPropertyDescriptors(request)
    parts.signal = { value: signal, enumerable: true, writable: true, configurable: true }
    const copy = Object.defineProperties({}, parts) as ModelRequest
    return Object.isFrozen(request) ? Object.freeze(copy) : copy
  }
  const copy: { -readonly [K in keyof ModelRequest]: ModelRequest[K] } = { signal, ...request }
  if (copy.signal !== signal) copy.signal = signal
  return Object.isFrozen(request) ? Object.freeze(copy) : copy
}

// A controller and its signal kept for their hidden classes (see keepShape): every attempt under a deadline makes one for its copy.
{
  const controller = new AbortController()
  keepShape(controller)
  keepShape(controller.signal)
}
