import type { NoProgressFacts } from '../../events/no-progress-event.ts'

export type { NoProgressPattern, NoProgressStep } from '../../events/no-progress-event.ts'

/** The forced change of the next turn: the looping tools withheld, or no tool at all. */
export type ForcedChange = { readonly withhold: readonly string[] } | { readonly toolChoice: 'none' }

/**
 * What the detector decided after a turn: which rung, on which loop, and what the run spent since
 * the loop began (the turns after the one that made the first call or text of the loop).
 */
export interface NoProgressVerdict extends NoProgressFacts {
  /** The ephemeral message the next turn is sent with (every rung has one: the forced turn and the stop reason say it too). */
  readonly message: string
  /** For `forced-change`: what the next turn is sent without. */
  readonly forced?: ForcedChange
}
