import type { ModelRequest } from '../../model/request.ts'

/**
 * A copy of `request` with another signal. A request whose `messages` is a lazily joined getter
 * (the retry tail over a long history) is copied by its property descriptors, so it stays lazy and
 * the copy costs the same for any history; any other is copied by a spread (a tenth of the cost).
 */
export function withSignal(request: ModelRequest, signal: AbortSignal): ModelRequest {
  if (Object.getOwnPropertyDescriptor(request, 'messages')?.get === undefined) return { ...request, signal }
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(request)) as { signal?: AbortSignal }
  Object.defineProperty(copy, 'signal', { value: signal, enumerable: true, writable: false, configurable: true })
  return copy as ModelRequest
}
