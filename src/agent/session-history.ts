import type { Message } from '../model/message.ts'
import type { RunCommit } from './run-events.ts'
import { frozenMessage } from '../model/frozen-copy.ts'

const NONE: readonly Message[] = [] // Never mutated: the first commit replaces it.
const FROZEN_NONE: readonly Message[] = Object.freeze([])

/**
 * A session's persisted history, and the commit of its in-memory runs. The array is replaced, never
 * mutated, on each commit (a run in flight keeps the array it read), and frozen when first read, not
 * per commit. The first commit keeps the run's exchange itself (the library's own array of frozen
 * messages, which nothing mutates): a copy cost each new session about 65 B.
 */
export class SessionHistory implements RunCommit {
  #messages: readonly Message[] = NONE

  /** The history as a run reads it (not frozen yet: see {@link snapshot}). */
  get messages(): readonly Message[] {
    return this.#messages
  }

  /** The history as the caller reads it: a frozen array of frozen messages. */
  get snapshot(): readonly Message[] {
    const messages = this.#messages
    if (messages.length === 0) return FROZEN_NONE
    return Object.isFrozen(messages) ? messages : Object.freeze(messages)
  }

  /** Appends a run's exchange to the history as it is now (not as it was when the run started), in one step. */
  commit(exchange: readonly Message[]): void {
    this.#messages = this.#messages.length > 0 ? this.#messages.concat(exchange) : exchange
  }

  /**
   * Replaces the history with a stored conversation's messages, or forgets it (none): an own copy of
   * frozen messages, as a commit keeps, so a caller editing a message of `session.history` cannot
   * change what the next run sends.
   */
  replace(messages: readonly Message[] = NONE): void {
    this.#messages = messages.length === 0 ? NONE : messages.map(frozenMessage)
  }
}
