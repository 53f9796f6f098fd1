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
 * (seconds or an HTTP date); a blank, negative or unreadable value counts as absent, and so does a
 * wait too long to be a number of milliseconds (`1e308` seconds).
 */
export function parseRetryAfter(ms: string | undefined, seconds: string | undefined, now: number = Date.now()): number | undefined {
  const inMs = nonNegative(ms)
  if (inMs !== undefined) return inMs
  if (seconds === undefined || seconds.trim() === '') return undefined
  const inSeconds = nonNegative(seconds)
  if (inSeconds !== undefined) return Number.isFinite(inSeconds * 1000) ? inSeconds * 1000 : undefined
  // An HTTP date begins with its day's name: `-1` or `2026` is a number refused above, not a year for Date.parse.
  if (!HTTP_DATE_START.test(seconds)) return undefined
  const date = Date.parse(seconds)
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined
}

const HTTP_DATE_START = /^\s*[A-Za-z]/

/** How long a provider asked us to wait, read from its response headers (see {@link parseRetryAfter}). */
export function retryAfterMs(headers: HeaderSource, now: number = Date.now()): number | undefined {
  return parseRetryAfter(readHeader(headers, 'retry-after-ms'), readHeader(headers, 'retry-after'), now)
}

function nonNegative(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === '') return undefined
  const n = Number(text)
  // -0 is no wait, as 0.
  return Number.isFinite(n) && n >= 0 ? n + 0 : undefined
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined
}
