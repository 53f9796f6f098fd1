import type { Message } from '../model/message.ts'
import type { ModelRequest } from '../model/request.ts'

/**
 * The retry request: the base request followed by the ephemeral tail.
 *
 * The base `messages` array is neither mutated nor copied here: the joined array is built lazily the
 * first time a provider reads `messages`, so assembling a retry costs the same for 10 or 10,000
 * messages of history.
 */
export function withTail(base: ModelRequest, tail: readonly Message[]): ModelRequest {
  if (tail.length === 0) return base
  const { messages, ...rest } = base
  let joined: readonly Message[] | undefined
  return {
    ...rest,
    get messages(): readonly Message[] {
      return (joined ??= messages.concat(tail))
    },
  }
}

/** The tail of a final-answer retry: the previous raw output, then the feedback. Both ephemeral. */
export function validationTail(previousOutput: string, feedback: string): readonly Message[] {
  return [
    { role: 'assistant', content: previousOutput, ephemeral: true },
    { role: 'user', content: feedback, ephemeral: true },
  ]
}
