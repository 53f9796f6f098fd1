import type { TypeBoxError } from './typebox-issues.ts'

/** TypeBox's structural hash (`typebox/system`'s `Hashing`), which tells items apart as its own keyword does. */
export interface HashingModule {
  Hash(value: unknown): unknown
}

const TOKEN = 'reliability-gate:uniqueItems#'
let issued = 0

/**
 * `uniqueItems: true` as a TypeBox `~refine` check: the verdict of TypeBox's own keyword (items
 * compared by TypeBox's structural hash), and an error walk in time linear in the array. TypeBox's
 * own walk copies its list of duplicates for each duplicate it finds: an answer of 100,000 items, half
 * of them equal, blocked the event loop for 25 seconds. Its error is the one TypeBox reports for the
 * keyword (see {@link UniqueItemsCheck.errors}).
 */
export class UniqueItemsCheck {
  /** What this check's TypeBox error carries as its message, to find the check again. */
  readonly token = `${TOKEN}${++issued}`
  readonly check: (value: unknown) => boolean
  readonly error: () => string
  readonly #hash: (value: unknown) => unknown

  constructor(hashing: HashingModule) {
    this.#hash = (value) => hashing.Hash(value)
    // TypeBox requires own `check` and `error` functions on a refinement; the keyword applies to arrays only.
    this.check = (value) => !Array.isArray(value) || new Set(value.map(this.#hash)).size === value.length
    this.error = () => this.token
  }

  /** The `uniqueItems` error TypeBox would report for the array at `instancePath`, with the index of every repeated item. */
  errors(value: unknown, instancePath: string, schemaPath: string): TypeBoxError[] {
    const seen = new Set<unknown>()
    const duplicateItems: number[] = []
    if (Array.isArray(value))
      for (let i = 0; i < value.length; i++) {
        const hash = this.#hash(value[i])
        if (seen.has(hash)) duplicateItems.push(i)
        else seen.add(hash)
      }
    return [{ keyword: 'uniqueItems', schemaPath, instancePath, params: { duplicateItems }, message: 'must not have duplicate items' }]
  }
}
