/** Anything with a `get` like `Headers`, or a plain header record. */
export type HeaderSource = { get(name: string): string | null } | Readonly<Record<string, string | undefined>> | undefined | null

/** Reads one header from a `Headers` object or a plain record (case-insensitive for records). */
export function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (headers === null || headers === undefined) return undefined
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? undefined
  const record = headers as Readonly<Record<string, string | undefined>>
  const direct = record[name]
  if (direct !== undefined) return direct
  const lower = name.toLowerCase()
  for (const [key, value] of Object.entries(record)) if (key.toLowerCase() === lower) return value
  return undefined
}

/**
 * How long a provider asked us to wait: `retry-after-ms` wins over `retry-after` (seconds or an
 * HTTP date).
 */
export function retryAfterMs(headers: HeaderSource, now: number = Date.now()): number | undefined {
  const ms = Number(readHeader(headers, 'retry-after-ms') ?? Number.NaN)
  if (Number.isFinite(ms) && ms >= 0) return ms
  const raw = readHeader(headers, 'retry-after')
  if (raw === undefined || raw.trim() === '') return undefined
  const seconds = Number(raw)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(raw)
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined
}
