import type { AttemptSlot } from '../../policies/attempt-slot.ts'
import type { AttemptContext } from '../../policies/middleware.ts'
import { ATTEMPT_SLOT } from '../../policies/attempt-slot.ts'
import type { ResponseCheck } from '../check-response.ts'
import type { RunView } from './run-view.ts'

/** The gate's slot of one attempt: the policies' part, the run it belongs to and the check's verdict. */
export interface GateSlot<T> extends AttemptSlot {
  readonly run: RunView<T>
  /** The check's verdict (its `value` is not read: see {@link value}). */
  checked: ResponseCheck<T> | undefined
  /** The checked value, written with the verdict (a whole answer accepted at once has a shared verdict). */
  value: T | string | undefined
}

/** The gate's slot of an attempt context (every context the gate's chain sees has one). */
export function gateSlot<T>(ctx: AttemptContext): GateSlot<T> {
  return (ctx as AttemptContext & { readonly [ATTEMPT_SLOT]: GateSlot<T> })[ATTEMPT_SLOT]
}
