import type { Usage } from '../model/usage.ts'

/** The loop a run is caught in: one call repeated, one tool's error repeated, two calls alternating, one text repeated. */
export type NoProgressPattern = 'repeated-call' | 'repeated-error' | 'ping-pong' | 'repeated-text'

/** The rungs of the ladder, in order: a nudge, one forced change, the stop. */
export type NoProgressStep = 'nudge' | 'forced-change' | 'stop'

/**
 * What a rung of the no-progress ladder says of the loop, in the detector's verdict and in the
 * `no_progress` event alike: the rung, the loop, and what the run spent since progress stopped.
 */
export interface NoProgressFacts {
  readonly step: NoProgressStep
  readonly pattern: NoProgressPattern
  /** The looping tools (none for repeated text). */
  readonly tools: readonly string[]
  /** How long the loop is now: calls, errors or texts. */
  readonly count: number
  /** The threshold of this pattern (the count that started the ladder). */
  readonly threshold: number
  /** Model turns since progress stopped (the turns after the one that made the loop's first call or text). */
  readonly turnsSinceProgress: number
  /** Tokens of those turns (0 for turns whose usage the host does not know; see `usageKnown`). */
  readonly usage: Usage
  /** Their cost in USD (as priced; 0 when unknown). */
  readonly costUsd: number
  /** False when some of those turns came without usage (a host that only sees the prompt). */
  readonly usageKnown: boolean
}

/**
 * The payload of `no_progress`: the run makes no progress and climbed a rung of the ladder: `nudge`
 * (the next turn carries an ephemeral notice), `forced-change` (the next turn is sent without the
 * looping tools, or with `toolChoice: 'none'`), `stop` (the run ends with kind `no-progress`).
 */
export interface NoProgressEvent extends NoProgressFacts {
  readonly runId: string
  /** Who detected it: the Agent's loop, the AI SDK middleware or helpers, the LangChain middleware. */
  readonly host: 'agent' | 'ai-sdk' | 'langchain'
}
