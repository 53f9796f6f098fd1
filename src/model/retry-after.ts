import { MAX_TIMER_MS } from './options-contract.ts'

/** Anything with a `get` like `Headers`, or a plain header record. */
export type HeaderSource = { get(name: string): string | null } | Readonly<Record<string, string | undefined>> | undefined | null

/** Reads one header from a `Headers` object or a plain record (case-insensitive for records); only strings count. */
export function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined
  if (typeof (headers as { get?: unknown }).get === 'function') return stringOr((headers as { get(n: string): unknown }).get(name))
  const record = headers as Readonly<Record<string, unknown>>
  const direct = record[name]
  if (direct !== undefined) return stringOr(direct)
  const lower = name.toLowerCase()
  for (const [key, value] of Object.entries(record)) if (key.toLowerCase() === lower) return stringOr(value)
  return undefined
}

/**
 * Parses retry-after header values into milliseconds: `retry-after-ms` wins over `retry-after`
 * (seconds or an HTTP date); a blank, negative or unreadable `retry-after-ms` counts as absent; a
 * negative number of seconds is no wait (0), as an HTTP date in the past is; an unreadable value
 * counts as absent. A wait longer than a timer can hold (2^31-1 ms, about 24.8 days: `1e10` or
 * `1e400` seconds, a date in the year 9999) is that longest wait ({@link longestWait}): never none,
 * and never a value that, handed to `setTimeout`, fires after 1 ms (a rule's `maxRetryAfterMs`
 * below it refuses it).
 */
export function parseRetryAfter(ms: string | undefined, seconds: string | undefined, now: number = Date.now()): number | undefined {
  const inMs = nonNegative(ms)
  if (inMs !== undefined) return longestWait(inMs)
  if (seconds === undefined || seconds.trim() === '') return undefined
  const inSeconds = nonNegative(seconds)
  if (inSeconds !== undefined) return longestWait(inSeconds * 1000)
  const n = Number(seconds)
  if (n === Number.POSITIVE_INFINITY) return MAX_TIMER_MS
  // A negative number is no wait on its own terms, never handed to Date.parse (which reads `-1` as a year).
  if (n < 0) return Number.isFinite(n) ? 0 : undefined
  const date = Date.parse(seconds)
  return Number.isFinite(date) ? longestWait(Math.max(0, date - now)) : undefined
}

/** `ms`, at most 2^31-1: the longest wait a timer can hold (Node fires a longer one after 1 ms). */
export function longestWait(ms: number): number {
  return Math.min(ms, MAX_TIMER_MS)
}

/** How long a provider asked us to wait, read from its response headers (see {@link parseRetryAfter}). */
export function retryAfterMs(headers: HeaderSource, now: number = Date.now()): number | undefined {
  return parseRetryAfter(readHeader(headers, 'retry-after-ms'), readHeader(headers, 'retry-after'), now)
}

// Decimal digits, as delta-seconds are written (an exponent and a fraction tolerated): `0x10` is no number of seconds.
const DECIMAL = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?\s*$/i

function nonNegative(text: string | undefined): number | undefined {
  if (text === undefined || !DECIMAL.test(text)) return undefined
  const n = Number(text)
  // -0 is no wait, as 0.
  return Number.isFinite(n) && n >= 0 ? n + 0 : undefined
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}
