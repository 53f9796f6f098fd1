import type { MeteredAnswer } from './meter.ts'
import type { AttemptContext } from './middleware.ts'

/**
 * Where the gate's own links of one attempt leave what they found, beside the context every link
 * sees: the meter writes the answer's shape-checked response and its metered cost, which the budget
 * charges (an answer is priced once) and the attempt's outcome reports. Keyed by a symbol the
 * library does not export; the chain copies it with the context.
 */
export const ATTEMPT_SLOT: unique symbol = Symbol('reliability-gate.attempt')

/** What the gate's links of one attempt found; `closed` once the attempt settled (no provider call may start after). */
export interface AttemptSlot {
  metered: MeteredAnswer | undefined
  /** The run's cost before this attempt (`cost_tick.cumulativeCostUsd`). */
  readonly costBefore: number
  closed: boolean
  /**
   * The run's signal, whose abort settles the attempt from outside: the provider call need not race
   * it again. (The deadline's signal is raced there, so the links inside the deadline see its timeout.)
   */
  raced: AbortSignal | undefined
  /** What runs once the attempt settles, even while a link still waits (a budget's release): see {@link onClose}. */
  closers: (() => void)[] | undefined
}

/** Runs `fn` when the attempt settles (at once if it has): how a link lets go of what it holds without a listener on the signal. */
export function onClose(slot: AttemptSlot, fn: () => void): void {
  if (slot.closed) return fn()
  if (slot.closers === undefined) slot.closers = [fn]
  else slot.closers.push(fn)
}

/** Settles the attempt: no provider call may start from it any more, and its closers run (a throw of one is contained). */
export function closeSlot(slot: AttemptSlot): void {
  slot.closed = true
  const closers = slot.closers
  if (closers === undefined) return
  slot.closers = undefined
  for (const fn of closers) {
    try {
      fn()
    } catch {
      // A closer only lets go of what it held; a failure to do so is the store's (a reservation expires anyway).
    }
  }
}

/** The attempt's slot, when the context came from the gate (a user's own test harness may build contexts without one). */
export function slotOf(ctx: AttemptContext): AttemptSlot | undefined {
  return (ctx as AttemptContext & { readonly [ATTEMPT_SLOT]?: AttemptSlot })[ATTEMPT_SLOT]
}
