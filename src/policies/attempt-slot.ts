import type { ModelResponse } from '../model/response.ts'
import type { Metered } from './meter.ts'
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
  metered: (Metered & { readonly response: ModelResponse }) | undefined
  /** The run's cost before this attempt (`cost_tick.cumulativeCostUsd`). */
  readonly costBefore: number
  closed: boolean
}

/** The attempt's slot, when the context came from the gate (a user's own test harness may build contexts without one). */
export function slotOf(ctx: AttemptContext): AttemptSlot | undefined {
  return (ctx as AttemptContext & { readonly [ATTEMPT_SLOT]?: AttemptSlot })[ATTEMPT_SLOT]
}
