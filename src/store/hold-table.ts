// Above this many live holds an id is found through a Map, below it by a scan (no Map to churn).
const SCAN_LIMIT = 8
// Back to scanning once the holds fall to this many: the Map is not rebuilt and dropped on every step.
const SCAN_AGAIN = 2
// Slots kept once every hold is released; a burst of more gives its arrays back.
const SHRINK_ABOVE = 64

/**
 * The live reservations of one counter, with their sum and the earliest expiry among them. Kept in
 * parallel arrays filled from the front (a released hold's slot takes the last one): a reserve and
 * a release allocate nothing once the arrays are as long as the most holds ever live at once, where
 * a `Map` keyed by ever-new ids would re-make its table as it empties and refills (measured: about
 * 150 B per reserve and release, against none here).
 */
export class HoldTable {
  #ids: string[] = []
  #amounts: number[] = []
  #expiries: number[] = []
  #count = 0
  /** The slot of every live id, only while more than {@link SCAN_LIMIT} are live. */
  #slots: Map<string, number> | undefined
  /** The sum of the live holds. */
  sum = 0
  /** The earliest expiry among the live holds (`Infinity` when none). */
  nextExpiry = Number.POSITIVE_INFINITY

  /** How many holds are live. */
  get size(): number {
    return this.#count
  }

  /** Drops the holds expired at `t` (a walk only once one may have), then gives the sum of the others. */
  liveSum(t: number): number {
    if (this.nextExpiry > t) return this.sum
    let sum = 0
    let nextExpiry = Number.POSITIVE_INFINITY
    for (let i = this.#count - 1; i >= 0; i--) {
      const expiresAt = this.#expiries[i] as number
      if (expiresAt <= t) this.#remove(i)
      else {
        sum += this.#amounts[i] as number
        if (expiresAt < nextExpiry) nextExpiry = expiresAt
      }
    }
    // A walk from the last slot: a removal moves the last hold into a slot already walked.
    this.sum = sum
    this.nextExpiry = nextExpiry
    return sum
  }

  /** Holds `amount` as `id` until `expiresAt`, replacing a live hold of the same id. */
  put(id: string, amount: number, expiresAt: number): void {
    const at = this.#find(id)
    if (at >= 0) {
      this.sum += amount - (this.#amounts[at] as number)
      this.#amounts[at] = amount
      this.#expiries[at] = expiresAt
    } else {
      const slot = this.#count++
      this.#ids[slot] = id
      this.#amounts[slot] = amount
      this.#expiries[slot] = expiresAt
      this.sum += amount
      if (this.#slots !== undefined) this.#slots.set(id, slot)
      else if (this.#count > SCAN_LIMIT) this.#slots = new Map(this.#ids.slice(0, this.#count).map((held, i) => [held, i]))
    }
    if (expiresAt < this.nextExpiry) this.nextExpiry = expiresAt
  }

  /** Ends the hold `id`, if it is live. */
  release(id: string): void {
    const at = this.#find(id)
    if (at < 0) return
    const amount = this.#amounts[at] as number
    this.#remove(at)
    this.sum = this.#count === 0 ? 0 : this.sum - amount
  }

  #find(id: string): number {
    if (this.#slots !== undefined) return this.#slots.get(id) ?? -1
    const ids = this.#ids
    // Identity first: the id a policy settles is most often the very string it reserved with.
    for (let i = this.#count - 1; i >= 0; i--) if (ids[i] === id) return i
    return -1
  }

  /** Frees slot `at`, moving the last hold into it; the sum is the caller's. */
  #remove(at: number): void {
    const last = --this.#count
    const slots = this.#slots
    slots?.delete(this.#ids[at] as string)
    if (at !== last) {
      const moved = this.#ids[last] as string
      this.#ids[at] = moved
      this.#amounts[at] = this.#amounts[last] as number
      this.#expiries[at] = this.#expiries[last] as number
      slots?.set(moved, at)
    }
    this.#ids[last] = '' // no released id kept alive
    if (slots !== undefined && this.#count <= SCAN_AGAIN) this.#slots = undefined
    // Arrays as long as the most holds ever live at once: a burst's are given back once it is over.
    if (last === 0 && this.#ids.length > SHRINK_ABOVE) {
      this.#ids = []
      this.#amounts = []
      this.#expiries = []
    }
  }
}
