import { hasBrand } from '../model/brand.ts'

const BRAND = Symbol.for('reliability-gate.SessionFormatError')

/**
 * A stored record cannot be read: it was written in a newer format than this version of the library
 * reads (upgrade the library), or it is not a record of a conversation at all.
 */
export class SessionFormatError extends Error {
  override readonly name = 'SessionFormatError'
  /** The conversation whose record failed. */
  readonly conversation: string
  /** The record's format version, when it had one. */
  readonly format: number | undefined
  readonly [BRAND] = true

  constructor(conversation: string, message: string, format?: number) {
    super(message)
    this.conversation = conversation
    this.format = format
  }
}

/** Brand check that works across realms and duplicate package copies. */
export function isSessionFormatError(value: unknown): value is SessionFormatError {
  return hasBrand(value, BRAND)
}
