import type { Usage } from '../model/usage.ts'

/**
 * The payload of `no_progress`: the run makes no progress (one call repeated, one tool's error
 * repeated, two calls alternating, one text repeated) and climbed a rung of the ladder: `nudge` (the
 * next turn carries an ephemeral notice), `forced-change` (the next turn is sent without the looping
 * tools, or with `toolChoice: 'none'`), `stop` (the run ends with kind `no-progress`).
 */
export interface NoProgressEvent {
  readonly runId: string
  /** Who detected it: the Agent's loop, the AI SDK middleware or helpers, the LangChain middleware. */
  readonly host: 'agent' | 'ai-sdk' | 'langchain'
  readonly step: 'nudge' | 'forced-change' | 'stop'
  readonly pattern: 'repeated-call' | 'repeated-error' | 'ping-pong' | 'repeated-text'
  /** The looping tools (none for repeated text). */
  readonly tools: readonly string[]
  /** The loop's length now (calls, errors or texts), and the threshold that started the ladder. */
  readonly count: number
  readonly threshold: number
  /** Model turns, tokens and USD spent since progress stopped. */
  readonly turnsSinceProgress: number
  readonly usage: Usage
  readonly costUsd: number
  /** False when some of those turns' usage is unknown to the host (counted as 0). */
  readonly usageKnown: boolean
}
