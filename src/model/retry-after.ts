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
 * negative number of seconds is no wait (0), as an HTTP date in the past is; a number of seconds too
 * large for milliseconds (`1e308`, `1e400`) is the longest wait (`Number.MAX_VALUE`: a rule's
 * `maxRetryAfterMs` refuses it, never a retry at once); an unreadable value counts as absent.
 */
export function parseRetryAfter(ms: string | undefined, seconds: string | undefined, now: number = Date.now()): number | undefined {
  const inMs = nonNegative(ms)
  if (inMs !== undefined) return inMs
  if (seconds === undefined || seconds.trim() === '') return undefined
  const inSeconds = nonNegative(seconds)
  // Seconds too many for a double in ms still ask for the longest wait, never for none (a rule's `maxRetryAfterMs` refuses it).
  if (inSeconds !== undefined) return Math.min(inSeconds * 1000, Number.MAX_VALUE)
  const n = Number(seconds)
  if (n === Number.POSITIVE_INFINITY) return Number.MAX_VALUE
  // A negative number is no wait on its own terms, never handed to Date.parse (which reads `-1` as a year).
  if (n < 0) return Number.isFinite(n) ? 0 : undefined
  const date = Date.parse(seconds)
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined
}

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
