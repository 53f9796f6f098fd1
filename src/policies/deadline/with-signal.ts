import type { ModelRequest } from '../../model/request.ts'

/**
 * A copy of `request` with another signal. Property descriptors are copied as they are, so a
 * lazily joined `messages` (the retry tail) stays lazy: the copy costs the same for any history.
 */
export function withSignal(request: ModelRequest, signal: AbortSignal): ModelRequest {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(request)) as { signal?: AbortSignal }
  Object.defineProperty(copy, 'signal', { value: signal, enumerable: true, writable: false, configurable: true })
  return copy as ModelRequest
}
