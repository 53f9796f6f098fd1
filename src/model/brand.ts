/**
 * Brands mark the library's own objects with a registry symbol (`Symbol.for('reliability-gate.<Name>')`)
 * so that guards recognise them across realms and across duplicate copies of the package, where
 * `instanceof` fails. A class declares the brand as a field (`readonly [BRAND] = true`); an object
 * made by a factory is branded with {@link brand}; either is checked with {@link hasBrand}.
 */

/**
 * Marks `target` with `key` (non-enumerable, read-only) and returns it, for objects a factory builds.
 *
 * @example
 * const BRAND = Symbol.for('reliability-gate.CircuitBreaker')
 * return brand({ acquire, record, state }, BRAND)
 */
export function brand<T extends object>(target: T, key: symbol): T {
  Object.defineProperty(target, key, { value: true, enumerable: false, writable: false, configurable: false })
  return target
}

/**
 * Whether `value` carries the brand `key`: an object whose `key` property is `true`.
 *
 * @example
 * export const isProviderError = (value: unknown): value is ProviderError => hasBrand(value, BRAND)
 */
export function hasBrand(value: unknown, key: symbol): boolean {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false
  try {
    return (value as Record<symbol, unknown>)[key] === true
  } catch {
    // A Proxy whose traps throw, or a getter that does: not one of ours.
    return false
  }
}
