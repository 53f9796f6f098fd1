/**
 * A copy of JSON-like data (a model's tool arguments) for user code that must not edit the
 * library's own: what it does to the copy never rewrites a recorded call. A value that cannot be
 * copied (it holds a function) is handed on as it is.
 */
export function dataCopy<V>(value: V): V {
  if (typeof value !== 'object' || value === null) return value
  try {
    return structuredClone(value)
  } catch {
    return value
  }
}
