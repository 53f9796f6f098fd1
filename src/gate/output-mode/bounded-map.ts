/**
 * A `Map` that keeps its `limit` most recently set entries: what a gate remembers per provider and
 * schema stays bounded whatever schemas its requests carry.
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, V>()
  readonly #limit: number

  constructor(limit: number) {
    this.#limit = limit
  }

  get(key: K): V | undefined {
    return this.#entries.get(key)
  }

  set(key: K, value: V): void {
    this.#entries.delete(key)
    this.#entries.set(key, value)
    if (this.#entries.size > this.#limit) {
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.#entries.delete(oldest.value)
    }
  }

  get size(): number {
    return this.#entries.size
  }
}
