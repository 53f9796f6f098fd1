const MARK = Symbol.for('reliability-gate.unreadableValue')

/**
 * Marks `error` as the refusal of a stored value that cannot be read (a counter overwritten with
 * text, a breaker record that is not one): a failure, never a 0 or a fresh state. The mark survives
 * wrapping (`cause`), so a policy that hears a `RedisStoreError` still knows. Returns `error`.
 */
export function markUnreadable<E extends Error>(error: E): E {
  Object.defineProperty(error, MARK, { value: true })
  return error
}

/** True when `error`, or an error in its `cause` chain, refused a value that cannot be read. */
export function isUnreadableValue(error: unknown): boolean {
  let seen = error
  for (let depth = 0; depth < 8 && typeof seen === 'object' && seen !== null; depth++) {
    if ((seen as Record<symbol, unknown>)[MARK] === true) return true
    seen = (seen as { cause?: unknown }).cause
  }
  return false
}
