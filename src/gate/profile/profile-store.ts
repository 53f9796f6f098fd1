import { markUnreadable } from '../../store/unreadable-value.ts'
import type { StateStore } from '../../store/state-store.ts'

/** The counters of one retry combination, or of one provider and model's runs. */
export type Counters = Readonly<Record<string, number>>

/** Where and how a profile keeps its counts: the store, the prefix of every key, the buckets and the clock. */
export interface ProfileLayout {
  readonly store: StateStore
  readonly prefix: string
  /** The length of one time bucket. */
  readonly bucketMs: number
  /** How many buckets make the window. */
  readonly buckets: number
  /** The clock, in ms. */
  readonly now: () => number
}

/**
 * The profile's layout in a {@link StateStore}: time buckets of `bucketMs`, the last `buckets` of
 * them making the window; in each bucket one counter per combination and field, and an index (a
 * JSON list, grown with compare-and-set) naming the combinations written there, so that any process
 * can read the whole profile back. Keys expire once out of the window.
 */
export class ProfileStore {
  readonly #store: StateStore
  readonly #prefix: string
  readonly #bucketMs: number
  readonly #buckets: number
  readonly #now: () => number
  /** Combinations this process already named in a bucket's index. */
  readonly #indexed = new Set<string>()

  constructor(layout: ProfileLayout) {
    this.#store = layout.store
    this.#prefix = layout.prefix
    this.#bucketMs = layout.bucketMs
    this.#buckets = layout.buckets
    this.#now = layout.now
  }

  get #ttl(): number {
    return this.#bucketMs * (this.#buckets + 1)
  }

  #bucket(): number {
    return Math.floor(this.#now() / this.#bucketMs)
  }

  #window(): number[] {
    const current = this.#bucket()
    return Array.from({ length: this.#buckets }, (_, i) => current - i)
  }

  /** Adds `fields` to the counters of `combo` in the current bucket, naming it in the bucket's index. */
  async add(combo: string, fields: Counters): Promise<void> {
    const bucket = this.#bucket()
    await this.#index(bucket, combo)
    for (const [field, by] of Object.entries(fields)) {
      if (by !== 0) await this.#store.increment(this.#key(bucket, combo, field), by, this.#ttl)
    }
  }

  /** The counters of `combo` summed over the window; a stored value that is no number is a failure, never 0. */
  async read(combo: string, fields: readonly string[]): Promise<Counters> {
    const sum: Record<string, number> = Object.fromEntries(fields.map((f) => [f, 0]))
    for (const bucket of this.#window()) {
      for (const field of fields) {
        const key = this.#key(bucket, combo, field)
        const text = await this.#store.get(key)
        if (text === undefined) continue
        const value = Number(text)
        if (text.trim() === '' || !Number.isFinite(value) || value < 0) {
          throw markUnreadable(new TypeError(`reliabilityProfile: the counter ${JSON.stringify(key)} holds ${JSON.stringify(text.slice(0, 40))}, not a count`))
        }
        sum[field] = (sum[field] ?? 0) + value
      }
    }
    return sum
  }

  /** Every combination named in the window's indexes. */
  async combos(): Promise<string[]> {
    const all = new Set<string>()
    for (const bucket of this.#window()) for (const combo of await this.#listed(bucket)) all.add(combo)
    return [...all]
  }

  async #listed(bucket: number): Promise<string[]> {
    const key = `${this.#prefix}:${bucket}:index`
    const text = await this.#store.get(key)
    if (text === undefined) return []
    let list: unknown
    try {
      list = JSON.parse(text)
    } catch {
      list = undefined
    }
    if (!Array.isArray(list) || !list.every((c) => typeof c === 'string')) {
      throw markUnreadable(new TypeError(`reliabilityProfile: the index ${JSON.stringify(key)} is not a list of names`))
    }
    return list
  }

  async #index(bucket: number, combo: string): Promise<void> {
    const mark = `${bucket}\n${combo}`
    if (this.#indexed.has(mark)) return
    const key = `${this.#prefix}:${bucket}:index`
    // Compare-and-set until the name is in: processes adding names at once never drop each other's.
    for (let tries = 0; tries < 64; tries++) {
      const text = await this.#store.get(key)
      const list = text === undefined ? [] : await this.#listed(bucket)
      if (list.includes(combo) || (await this.#store.compareAndSet(key, text, JSON.stringify([...list, combo]), this.#ttl))) {
        this.#indexed.add(mark)
        return
      }
    }
    throw new Error(`reliabilityProfile: the index ${JSON.stringify(key)} kept changing; ${JSON.stringify(combo)} was not added`)
  }

  #key(bucket: number, combo: string, field: string): string {
    return `${this.#prefix}:${bucket}:${combo}:${field}`
  }
}

/** A store key part for a name a user or a model chose: no `:` or `|` left to split on. */
export const keyPart = (name: string | undefined): string => (name === undefined ? '-' : encodeURIComponent(name))
