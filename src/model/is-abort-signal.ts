/** An `AbortSignal`, from this realm or another (a worker's, a polyfill's): what the gate calls on one. */
export function isAbortSignal(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false
  const s = value as { aborted?: unknown; addEventListener?: unknown; removeEventListener?: unknown }
  return typeof s.aborted === 'boolean' && typeof s.addEventListener === 'function' && typeof s.removeEventListener === 'function'
}
