import type { Usage } from '../../model/usage.ts'

/** The loop a run is caught in. */
export type NoProgressPattern = 'repeated-call' | 'repeated-error' | 'ping-pong' | 'repeated-text'

/** The rungs of the ladder, in order: a nudge, one forced change, the stop. */
export type NoProgressStep = 'nudge' | 'forced-change' | 'stop'

/** The forced change of the next turn: the looping tools withheld, or no tool at all. */
export type ForcedChange = { readonly withhold: readonly string[] } | { readonly toolChoice: 'none' }

/**
 * What the detector decided after a turn: which rung, on which loop, and what the run spent since
 * the loop began (the turns after the one that made the first call or text of the loop).
 */
export interface NoProgressVerdict {
  readonly step: NoProgressStep
  readonly pattern: NoProgressPattern
  /** The tools of the loop (none for repeated text). */
  readonly tools: readonly string[]
  /** How long the loop is now: calls, errors or texts. */
  readonly count: number
  /** The threshold of this pattern (the count that started the ladder). */
  readonly threshold: number
  /** Model turns since progress stopped. */
  readonly turnsSinceProgress: number
  /** Tokens of those turns (0 for turns whose usage the host does not know; see `usageKnown`). */
  readonly usage: Usage
  /** Their cost in USD (as priced; 0 when unknown). */
  readonly costUsd: number
  /** False when some of those turns came without usage (a host that only sees the prompt). */
  readonly usageKnown: boolean
  /** The ephemeral message the next turn is sent with (every rung has one: the forced turn and the stop reason say it too). */
  readonly message: string
  /** For `forced-change`: what the next turn is sent without. */
  readonly forced?: ForcedChange
}
