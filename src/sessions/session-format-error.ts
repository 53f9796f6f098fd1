import { hasBrand } from '../model/brand.ts'

const BRAND = Symbol.for('reliability-gate.SessionFormatError')

/**
 * A stored conversation cannot be read, so nothing of it is replayed to a model: a record was
 * written in a newer format than this version of the library reads (upgrade the library), or it is
 * not a record of a conversation (not JSON, a message with an unknown role, tool calls that are no
 * list, an ephemeral message, a tool result answering no call). `field` names where, e.g.
 * `messages[3].role`.
 */
export class SessionFormatError extends Error {
  override readonly name = 'SessionFormatError'
  /** The conversation whose record failed. */
  readonly conversation: string
  /** The record's format version, when it had one. */
  readonly format: number | undefined
  /** Where the stored conversation is wrong (`messages[3].role`, `exchanges[0]`), when one field is. */
  readonly field: string | undefined
  readonly [BRAND] = true

  constructor(conversation: string, message: string, format?: number, field?: string) {
    super(message)
    this.conversation = conversation
    this.format = format
    this.field = field
  }
}

/** Brand check that works across realms and duplicate package copies. */
export function isSessionFormatError(value: unknown): value is SessionFormatError {
  return hasBrand(value, BRAND)
}
