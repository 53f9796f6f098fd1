import { assertObject } from '../model/argument-checks.ts'
import { hasBrand } from '../model/brand.ts'

const BRAND = Symbol.for('reliability-gate.StateLostError')

/**
 * A store found that state it held before has vanished: the epoch written when the state was first
 * created is gone, or was written anew by someone else (the server restarted without persistence,
 * the keys were evicted or flushed). The operation did nothing. The store forgets the epoch, so its
 * next call starts the state again; a shared budget refuses to spend until it is re-armed
 * (`budget.rearm()`), breakers and rate limits let the call through and start again from zero.
 */
export class StateLostError extends Error {
  override readonly name = 'StateLostError'
  /** The full key of the operation that noticed (prefix included). */
  readonly key: string
  /** The epoch key of its group. */
  readonly epochKey: string
  /** The epoch this process saw before. */
  readonly seen: string
  /** The epoch found now: `undefined` when there is none (the state was wiped). */
  readonly found: string | undefined
  readonly [BRAND] = true

  constructor(at: { readonly store: string; readonly key: string; readonly epochKey: string; readonly seen: string; readonly found: string | undefined }) {
    assertObject(at, 'StateLostError: at', '{ store, key, epochKey, seen, found }')
    const now = at.found === undefined ? 'it is gone' : `it is now ${at.found}`
    super(`${at.store}: the state of "${at.key}" vanished (epoch ${at.seen} seen before, ${now}): a restart without persistence, an eviction or a flush`)
    this.key = at.key
    this.epochKey = at.epochKey
    this.seen = at.seen
    this.found = at.found
  }
}

/** Brand check that works across realms and duplicate package copies. */
export function isStateLostError(value: unknown): value is StateLostError {
  return hasBrand(value, BRAND)
}
