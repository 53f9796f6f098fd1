import type { Message, Role } from '../model/message.ts'
import { typeName } from '../model/describe-value.ts'
import { isRecord } from '../model/is-record.ts'
import { SessionFormatError } from './session-format-error.ts'

/** The format stored exchanges are written in; readers refuse a newer one. */
export const SESSION_FORMAT = 1

const ROLES: readonly unknown[] = ['system', 'user', 'assistant', 'tool'] satisfies Role[]

/**
 * Checks an exchange handed to `append` and returns the copy to store: whole messages only, never
 * an ephemeral one (the gate's retry feedback is never persisted, whatever a caller passes).
 */
export function storableExchange(exchange: unknown, where: string): readonly Message[] {
  if (!Array.isArray(exchange) || exchange.length === 0)
    throw new TypeError(`${where}: exchange must be a non-empty array of messages, got ${typeName(exchange)}`)
  return exchange.map((message: unknown, i) => {
    if (!isRecord(message) || !ROLES.includes(message['role']) || typeof message['content'] !== 'string') {
      throw new TypeError(`${where}: exchange[${i}] must be a message { role, content }, got ${typeName(message)}`)
    }
    if (message['ephemeral'] === true) throw new TypeError(`${where}: exchange[${i}] is ephemeral: retry feedback is never stored`)
    const { ephemeral: _dropped, ...kept } = message as unknown as Message
    return kept
  })
}

/** The stored text of one exchange: `{"f":1,"m":[...]}`. */
export function encodeExchange(messages: readonly Message[]): string {
  return JSON.stringify({ f: SESSION_FORMAT, m: messages })
}

/** The messages of one stored exchange; throws `SessionFormatError` for a newer format or a record that is no exchange. */
export function decodeExchange(conversation: string, text: unknown): Message[] {
  let record: unknown
  try {
    record = typeof text === 'string' ? JSON.parse(text) : text
  } catch {
    throw new SessionFormatError(conversation, `session "${conversation}": a stored record is not JSON`)
  }
  if (!isRecord(record) || typeof record['f'] !== 'number')
    throw new SessionFormatError(conversation, `session "${conversation}": a stored record has no format version`)
  checkFormat(conversation, record['f'])
  const messages = record['m']
  if (!Array.isArray(messages)) throw new SessionFormatError(conversation, `session "${conversation}": a stored record has no messages`, record['f'])
  return messages as Message[]
}

/** Refuses a record written in a newer format than {@link SESSION_FORMAT}. */
export function checkFormat(conversation: string, format: number): void {
  if (format > SESSION_FORMAT || !Number.isInteger(format) || format < 1) {
    throw new SessionFormatError(
      conversation,
      `session "${conversation}": a stored record has format ${format}, this version of reliability-gate reads format ${SESSION_FORMAT} or older: upgrade reliability-gate`,
      format,
    )
  }
}

/** Checks a conversation id handed to a store. */
export function checkId(id: unknown, where: string): asserts id is string {
  if (typeof id !== 'string' || id.length === 0 || id.length > 512)
    throw new TypeError(`${where}: id must be a non-empty string of at most 512 characters, got ${typeName(id)}`)
}

/** Checks an append request and returns the exchange to store, the expected version and the conflict mode. */
export function checkAppend(
  id: unknown,
  request: unknown,
  where: string,
): { readonly exchange: readonly Message[]; readonly expected: number; readonly fail: boolean } {
  checkId(id, where)
  if (!isRecord(request)) throw new TypeError(`${where}: request must be { exchange, expectedVersion, onConflict? }, got ${typeName(request)}`)
  const expected = request['expectedVersion']
  if (typeof expected !== 'number' || !Number.isSafeInteger(expected) || expected < 0) {
    throw new TypeError(`${where}: expectedVersion must be a non-negative integer, got ${typeName(expected)}`)
  }
  const onConflict = request['onConflict'] ?? 'append'
  if (onConflict !== 'append' && onConflict !== 'fail') throw new TypeError(`${where}: onConflict must be 'append' or 'fail', got ${typeName(onConflict)}`)
  return { exchange: storableExchange(request['exchange'], where), expected, fail: onConflict === 'fail' }
}

/** Checks the `ttlMs` option of a store factory: a positive number of milliseconds, or undefined. */
export function checkTtl(ttlMs: unknown, where: string): number | undefined {
  if (ttlMs === undefined) return undefined
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0)
    throw new RangeError(`${where}: ttlMs must be a positive number of milliseconds, got ${typeName(ttlMs)}`)
  return Math.ceil(ttlMs)
}
