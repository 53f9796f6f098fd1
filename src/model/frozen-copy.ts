import type { Message } from './message.ts'
import type { ModelRequest } from './request.ts'
import type { ToolCall } from './tool-call.ts'

/**
 * A frozen copy of a message for user code and for a persisted history: its tool calls and their
 * argument objects are copied and frozen too (deeply), so an edit in place can neither reach the
 * caller's objects nor change what was committed. A message that is already frozen is its own copy.
 */
export function frozenMessage(message: Message): Message {
  if (Object.isFrozen(message)) return message
  const copy: { -readonly [K in keyof Message]: Message[K] } = { ...message }
  if (Array.isArray(message.toolCalls)) copy.toolCalls = Object.freeze(message.toolCalls.map(frozenCall))
  if (Array.isArray(message.reasoning)) copy.reasoning = Object.freeze(message.reasoning.map((block) => deepFrozen(block)))
  return Object.freeze(copy)
}

/** Frozen copies of messages, in a frozen array (see {@link frozenMessage}). */
export function frozenMessages(messages: readonly Message[]): readonly Message[] {
  if (Object.isFrozen(messages) && messages.every((m) => Object.isFrozen(m))) return messages
  return Object.freeze(messages.map(frozenMessage))
}

/**
 * A frozen copy of a request, as user code receives it (middleware, `attempt_start` listeners): to
 * change what is sent, a middleware passes a changed copy to `next(changed)`.
 */
export function frozenRequest(request: ModelRequest): ModelRequest {
  return Object.freeze({ ...request, messages: frozenMessages(request.messages), ...frozenSpecs(request) })
}

/** What of a request user code could edit besides its messages (its tools and schemas), as frozen copies: the caller's own objects are never frozen in place. */
export type FrozenSpecs = Pick<ModelRequest, 'tools' | 'responseSchema' | 'nativeSchema'>

/** {@link FrozenSpecs} of `request`: only the fields it has (a frozen value is its own copy). */
export function frozenSpecs(request: ModelRequest): FrozenSpecs {
  const specs: { -readonly [K in keyof FrozenSpecs]: FrozenSpecs[K] } = {}
  if (request.tools !== undefined) specs.tools = deepFrozen(request.tools)
  if (request.responseSchema !== undefined) specs.responseSchema = deepFrozen(request.responseSchema)
  if (request.nativeSchema !== undefined) specs.nativeSchema = deepFrozen(request.nativeSchema)
  return specs
}

function frozenCall(call: ToolCall): ToolCall {
  if (Object.isFrozen(call)) return call
  return Object.freeze({ ...call, args: deepFrozen(call.args) })
}

/** A deep frozen copy of a JSON-like value (plain objects and arrays are copied; anything else is kept). */
export function deepFrozen<V>(value: V, depth = 0): V {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || depth > 256) return value
  if (Array.isArray(value)) return Object.freeze(value.map((v) => deepFrozen(v, depth + 1))) as V
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return value
  const copy: Record<string, unknown> = proto === null ? Object.create(null) : {}
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key]
    if (key === '__proto__') Object.defineProperty(copy, key, { value: deepFrozen(v, depth + 1), enumerable: true, writable: true, configurable: true })
    else copy[key] = deepFrozen(v, depth + 1)
  }
  return Object.freeze(copy) as V
}
