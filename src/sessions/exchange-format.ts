import type { Message } from '../model/message.ts'
import { shownValue, typeName } from '../model/describe-value.ts'
import { isRecord } from '../model/is-record.ts'
import { option, optionsContract, type OptionsContract } from '../model/options-contract.ts'
import { exchangeProblem, type FormatProblem, formatFields, pathOf } from './message-format.ts'
import { checkSessionId } from './session-id.ts'
import { SessionFormatError } from './session-format-error.ts'
import type { AppendRequest } from './session-store.ts'

/** The format stored exchanges are written in; readers refuse a newer one. */
export const SESSION_FORMAT = 1

/**
 * Checks an exchange handed to `append` and returns the copy to store: whole messages of the
 * format only (the check a load applies, so a store never writes what it cannot read back), never
 * an ephemeral one (the gate's retry feedback is never persisted, whatever a caller passes).
 */
export function storableExchange(exchange: unknown, where: string): readonly Message[] {
  if (!Array.isArray(exchange) || exchange.length === 0)
    throw new TypeError(`${where}: exchange must be a non-empty array of messages, got ${typeName(exchange)}`)
  const copies = exchange.map((message: unknown, i) => {
    if (!isRecord(message)) throw new TypeError(`${where}: exchange[${i}] must be a message { role, content }, got ${typeName(message)}`)
    if (message['ephemeral'] === true) throw new TypeError(`${where}: exchange[${i}] is ephemeral: retry feedback is never stored`)
    return formatFields(message)
  })
  const problem = exchangeProblem(copies, 0, 'exchange')
  if (problem !== undefined) throw new TypeError(`${where}: ${problemText(problem)}`)
  return copies as unknown as Message[]
}

/** The stored text of one exchange: `{"f":1,"m":[...]}`. */
export function encodeExchange(messages: readonly Message[]): string {
  return JSON.stringify({ f: SESSION_FORMAT, m: messages })
}

/** One stored exchange as a store read it: its text (or parsed value) and, where the store keeps it beside, its format. */
export interface StoredRecord {
  readonly body: unknown
  readonly format?: unknown
}

/**
 * The messages of a stored conversation, its exchanges in order, each checked against the message
 * format (roles, string content, tool calls and the results answering them, no ephemeral message,
 * no unknown field) and the record shape (`{"f":1,"m":[...]}`). The one reading of stored data every
 * store goes through: a record that fails throws `SessionFormatError` naming the conversation and
 * the field (`messages[3].role`), and nothing of the conversation is returned.
 */
export function readConversation(conversation: string, records: readonly StoredRecord[]): Message[] {
  const messages: Message[] = []
  for (let i = 0; i < records.length; i++) {
    const record = records[i] as StoredRecord
    if (record.format !== undefined) checkFormat(conversation, Number(record.format))
    const exchange = decodeRecord(conversation, record.body, i)
    if (record.format !== undefined && Number(record.format) !== exchange.format) {
      throw formatError(conversation, { field: `exchanges[${i}].f`, expected: `the format the record is filed under (${record.format})`, got: exchange.format })
    }
    const problem = exchangeProblem(exchange.messages, messages.length)
    if (problem !== undefined) throw formatError(conversation, problem, exchange.format)
    for (const message of exchange.messages) messages.push(message as Message)
  }
  return messages
}

/**
 * The messages a store of the caller's own loaded, checked against the message format as the
 * library's stores check theirs (the exchanges are not told apart there: a tool result may answer a
 * call anywhere before it). Throws `SessionFormatError` naming the conversation and the field.
 */
export function checkLoadedMessages(conversation: string, messages: readonly unknown[]): readonly Message[] {
  const problem = exchangeProblem(messages, 0)
  if (problem !== undefined) throw formatError(conversation, problem)
  return messages as readonly Message[]
}

/** The format and the (unchecked) messages of the stored exchange `index`. */
function decodeRecord(conversation: string, text: unknown, index: number): { readonly format: number; readonly messages: readonly unknown[] } {
  const at = `exchanges[${index}]`
  let record: unknown
  try {
    record = typeof text === 'string' ? JSON.parse(text) : text
  } catch {
    throw formatError(conversation, { field: at, expected: 'JSON text', got: text })
  }
  if (!isRecord(record) || typeof record['f'] !== 'number')
    throw formatError(conversation, { field: `${at}.f`, expected: 'a format version', got: isRecord(record) ? record['f'] : record })
  const format = record['f']
  checkFormat(conversation, format)
  const messages = record['m']
  if (!Array.isArray(messages) || messages.length === 0)
    throw formatError(conversation, { field: `${at}.m`, expected: 'a non-empty array of messages', got: messages }, format)
  const extra = Object.keys(record).find((key) => key !== 'f' && key !== 'm')
  if (extra !== undefined) throw formatError(conversation, { field: pathOf(at, extra), expected: 'absent (a record is { f, m })', got: record[extra] }, format)
  return { format, messages }
}

/** Refuses a record written in a newer format than {@link SESSION_FORMAT} (or in none). */
export function checkFormat(conversation: string, format: number): void {
  if (format > SESSION_FORMAT || !Number.isInteger(format) || format < 1) {
    throw new SessionFormatError(
      conversation,
      `session ${JSON.stringify(conversation)}: a stored record has format ${format}, this version of reliability-gate reads format ${SESSION_FORMAT} or older: upgrade reliability-gate`,
      format,
    )
  }
}

/** A stored conversation whose version does not match its exchanges (`found` of them): a record is missing or extra. */
export function versionMismatch(conversation: string, version: unknown, found: number): SessionFormatError {
  return formatError(conversation, { field: 'version', expected: `the number of stored exchanges (${found})`, got: version })
}

const problemText = (problem: FormatProblem): string => `${problem.field} must be ${problem.expected}, got ${shownValue(problem.got)}`

/** The `SessionFormatError` of a stored conversation whose `problem.field` breaks the format: nothing of it is replayed. */
export function formatError(conversation: string, problem: FormatProblem, format?: number): SessionFormatError {
  return new SessionFormatError(
    conversation,
    `session ${JSON.stringify(conversation)}: the stored conversation cannot be read, nothing of it is replayed: ${problemText(problem)} (repair or delete the record)`,
    format,
    problem.field,
  )
}

const APPEND_REQUESTS = new Map<string, OptionsContract<AppendRequest>>()
/** The contract of `append`'s request at `where` (one per store kind, made once). */
function appendRequest(where: string): OptionsContract<AppendRequest> {
  let contract = APPEND_REQUESTS.get(where)
  if (contract === undefined) {
    contract = optionsContract<AppendRequest>(where, { exchange: option.any(), expectedVersion: option.integer(0), onConflict: option.oneOf('append', 'fail') })
    APPEND_REQUESTS.set(where, contract)
  }
  return contract
}

/** Checks an append request and returns the exchange to store, the expected version and the conflict mode. */
export function checkAppend(
  id: unknown,
  request: unknown,
  where: string,
): { readonly exchange: readonly Message[]; readonly expected: number; readonly fail: boolean } {
  checkSessionId(id, where)
  if (!isRecord(request)) throw new TypeError(`${where}: request must be { exchange, expectedVersion, onConflict? }, got ${typeName(request)}`)
  const { exchange, expectedVersion, onConflict } = appendRequest(where).check(request as unknown as AppendRequest)
  if (expectedVersion === undefined) throw new TypeError(`${where}: expectedVersion must be a non-negative integer, got undefined`)
  return { exchange: storableExchange(exchange, where), expected: expectedVersion, fail: onConflict === 'fail' }
}
