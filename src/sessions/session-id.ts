import { shownValue } from '../model/describe-value.ts'

/**
 * The longest conversation id every store holds, in UTF-16 code units (at most 2,048 bytes of
 * UTF-8: well inside a PostgreSQL index entry, a Redis key, a SQLite key).
 */
export const MAX_SESSION_ID_LENGTH = 512

/** Matches half of a UTF-16 pair alone (a `u` pattern reads a whole pair as one code point). */
const LONE_SURROGATE = /\p{Cs}/u

/** What is wrong with `id` as a conversation id, or `undefined` when every store can hold it. */
export function sessionIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string') return `must be a string, got ${shownValue(id)}`
  if (id.length === 0) return 'must not be empty'
  if (id.length > MAX_SESSION_ID_LENGTH) return `must be at most ${MAX_SESSION_ID_LENGTH} characters, got ${id.length}`
  // PostgreSQL text cannot hold NUL, and no store can write a lone surrogate as UTF-8.
  if (id.includes('\u0000')) return 'must not contain NUL (\\u0000): PostgreSQL text cannot hold it'
  if (LONE_SURROGATE.test(id)) return 'must not contain a lone surrogate (half of a UTF-16 pair): it has no UTF-8 form'
  return undefined
}

/**
 * Refuses, with a `TypeError` naming `where` and the problem, a conversation id a store cannot hold:
 * not a string, empty, longer than {@link MAX_SESSION_ID_LENGTH}, holding NUL or a lone surrogate.
 * Every store calls it first in `load`, `append` and `delete`, before any I/O: one rule for all.
 */
export function checkSessionId(id: unknown, where: string): asserts id is string {
  const problem = sessionIdProblem(id)
  if (problem !== undefined) throw new TypeError(`${where}: id ${problem}`)
}
