/**
 * A canonical JSON text of a value with object keys sorted at every depth, so two argument objects
 * that differ only in key order compare equal (redundant-retry detection).
 *
 * @example
 * stableKey({ b: 1, a: [{ d: 2, c: 3 }] }) === stableKey({ a: [{ c: 3, d: 2 }], b: 1 }) // true
 */
export function stableKey(value: unknown): string {
  return JSON.stringify(sortKeys(value, 0)) ?? 'undefined'
}

// Deeper than any real argument object; past it values are compared as they are.
const MAX_DEPTH = 64

function sortKeys(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return value
  if (Array.isArray(value)) return value.map((item) => sortKeys(item, depth + 1))
  // fromEntries defines own properties, so a `__proto__` key stays a key instead of a prototype.
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key], depth + 1)]),
  )
}
