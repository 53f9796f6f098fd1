import type { Message } from '../model/message.ts'
import type { ModelRequest } from '../model/request.ts'

// The request the latest successful check of `gate.run` / `gate.stream` validated, and the messages
// array it read: the run starts right after the check, in the same synchronous step, and takes the
// array from here instead of reading `messages` again (a getter or a proxy may answer another one).
// One slot, no allocation; at most one request is held until the next check or the run's start.
let checkedRequest: object | undefined
let checkedList: readonly Message[] | undefined

/** Records that `messages`, read from `request`, passed the request's check (see {@link checkedMessages}). */
export function noteChecked(request: object, messages: readonly Message[]): void {
  checkedRequest = request
  checkedList = messages
}

/**
 * The messages a run of `request` sends: the very array the request's check validated when the
 * run starts right after it, else (a run started without the public check) `request.messages`.
 * Taken once: the slot is emptied.
 */
export function checkedMessages(request: ModelRequest): readonly Message[] {
  if (request !== checkedRequest) return request.messages
  const messages = checkedList as readonly Message[]
  checkedRequest = checkedList = undefined
  return messages
}
