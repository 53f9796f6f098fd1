/**
 * True for an `Error` handed on as a value (returned, not thrown): an instance of this realm's
 * `Error` or of a subclass, or one made in another realm (a `vm` context, a worker's copy), which
 * `instanceof` misses and the brand `Object.prototype.toString` reads does not.
 */
export function isErrorValue(value: unknown): value is Error {
  if (typeof value !== 'object' || value === null) return false
  try {
    return value instanceof Error || Object.prototype.toString.call(value) === '[object Error]'
  } catch {
    // A Proxy whose getPrototypeOf trap throws: no Error of ours to tell apart.
    return false
  }
}
