import type { Message } from '../model/message.ts'
import type { ModelRequest } from '../model/request.ts'
import { LAZY_JOIN as JOIN } from '../model/request-copy.ts'

// Up to this many base messages the joined array is built at once: copying a few dozen references
// costs less than the getter below (an accessor and a closure per request).
const JOIN_AT_ONCE_MAX = 64

/**
 * The retry request: the base request followed by the ephemeral tail. The base `messages` array is
 * never mutated. A short history is joined at once; a longer one is not copied here: the joined
 * array is built the first time a provider reads `messages`, so assembling a retry costs the same
 * for 10 or 10,000 messages of history.
 */
export function withTail(base: ModelRequest, tail: readonly Message[]): ModelRequest {
  if (tail.length === 0) return base
  if (base.messages.length <= JOIN_AT_ONCE_MAX) return { ...base, messages: base.messages.concat(tail) }
  const { messages, ...rest } = base
  Object.defineProperty(rest, JOIN, { value: { messages, tail, joined: undefined } satisfies LazyJoin })
  return Object.defineProperty(rest, 'messages', JOINED_MESSAGES) as ModelRequest
}

/**
 * {@link withTail} for user code: the request, its joined `messages` array (built when first read,
 * for a long history) and the parts are frozen. Freezes no message: give it frozen base messages
 * and a frozen tail (`frozenMessages`), so a retry costs the same for any history.
 */
export function frozenWithTail(base: ModelRequest, tail: readonly Message[]): ModelRequest {
  if (tail.length === 0) return Object.isFrozen(base) ? base : Object.freeze({ ...base })
  if (base.messages.length <= JOIN_AT_ONCE_MAX) return Object.freeze({ ...base, messages: Object.freeze(base.messages.concat(tail)) })
  const { messages, ...rest } = base
  Object.defineProperty(rest, JOIN, { value: { messages, tail, joined: undefined } satisfies LazyJoin })
  return Object.freeze(Object.defineProperty(rest, 'messages', FROZEN_JOINED_MESSAGES)) as ModelRequest
}
interface LazyJoin {
  readonly messages: readonly Message[]
  readonly tail: readonly Message[]
  joined: readonly Message[] | undefined
}
// One getter shared by every lazily joined request: each such request has the same shape, so the
// code that reads it stays fast (a getter made per request would give each its own hidden class).
const JOINED_MESSAGES: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: { readonly [JOIN]: LazyJoin }): readonly Message[] {
    const join = this[JOIN]
    return (join.joined ??= join.messages.concat(join.tail))
  },
}

// The same getter for a frozen request (its own shape): the joined array is frozen too.
const FROZEN_JOINED_MESSAGES: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: { readonly [JOIN]: LazyJoin }): readonly Message[] {
    const join = this[JOIN]
    return (join.joined ??= Object.freeze(join.messages.concat(join.tail)))
  },
}

/** The tail of a final-answer retry: the previous raw output, then the feedback. Both ephemeral, all frozen. */
export function validationTail(previousOutput: string, feedback: string): readonly Message[] {
  // Frozen: rules read the tail through their scope, and none may change what the next attempt sends.
  return Object.freeze([
    Object.freeze<Message>({ role: 'assistant', content: previousOutput, ephemeral: true }),
    Object.freeze<Message>({ role: 'user', content: feedback, ephemeral: true }),
  ])
}
