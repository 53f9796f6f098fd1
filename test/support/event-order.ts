import type { GateEvent } from '../../src/index.ts'

/**
 * The events of a gate run whose first answer fails its schema and whose second is accepted, in the
 * order they are emitted (every listener and recorder sees this order).
 */
export const RETRY_THEN_OK_EVENTS: readonly GateEvent['type'][] = [
  'run_start',
  'attempt_start',
  // No price table: each answer is unpriced, and said so (before its cost_tick).
  'cost_unknown',
  'cost_tick',
  'validation_failed',
  'attempt_end',
  'decision',
  'retry',
  'attempt_start',
  'cost_unknown',
  'cost_tick',
  'attempt_end',
  'decision',
  'recovered',
  'run_end',
]
