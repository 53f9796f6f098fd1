import type { Message } from '../../model/message.ts'
import { keepShape } from '../../model/keep-shape.ts'

const NONE: readonly never[] = Object.freeze([])

/**
 * What a run keeps only for what follows a failed or retried attempt: the ephemeral tail, the
 * validation history and its signatures, the latest `retry-after` and the transient failures. The
 * run loop makes it at the first attempt that leaves any of these (or at its first retry) and alone
 * writes it: a run whose first answer is accepted makes none (5 fields of the loop: ~40 B per plain run).
 */
export class RetryState {
  tail: readonly Message[] = NONE
  history: readonly string[] = NONE
  signatures: readonly string[] = NONE
  retryAfterMs: number | undefined = undefined
  transientFailures = 0
}

// Kept for its hidden class (see keepShape): a run that retries after a full collection keeps its optimised code.
keepShape(new RetryState())
