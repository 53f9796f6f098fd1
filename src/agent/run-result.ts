import type { AttemptRecord } from '../gate/attempt-record.ts'
import type { Message } from '../model/message.ts'
import type { ModelResponse } from '../model/response.ts'
import type { Usage } from '../model/usage.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import type { FunctionCall } from './function-call.ts'
import type { Spent } from './run-ledger.ts'

/** Everything one agent run produced. */
export interface RunResult<T> {
  /** The run's id, as on its events (one id for every model turn and tool call of the run). */
  readonly runId: string
  /** The accepted answer's text. */
  readonly text: string
  /** The validated value (the text itself when no output schema is set). */
  readonly value: T
  /** The accepted final response (a synthetic one when an output fallback answered). */
  readonly response: ModelResponse
  /** One entry per logical tool call, in the order the model made them, retries folded in. */
  readonly functionsCalled: readonly FunctionCall[]
  /** Every attempt of every model call of the run (tool turns and argument retries included), oldest first. */
  readonly attempts: readonly AttemptRecord[]
  /** Usage over every attempt, failed ones and argument retries included. */
  readonly usage: Usage
  /** Cost over every attempt, failed ones and argument retries included. */
  readonly costUsd: number
  /** Model turns of the tool loop (1 for a run without tool calls). */
  readonly turns: number
  /** What the run committed to the history: the user message, each tool turn with its results, the answer. */
  readonly exchange: readonly Message[]
  /** Provider that produced the accepted answer (`fallback`, or `output-fallback` / `canned` for the agent's tiers). */
  readonly provider: string
  /** True when a fallback (the gate's, or the agent's output fallback) produced the answer. */
  readonly fromFallback: boolean
  /** Which output-fallback tier answered, if any. */
  readonly outputFallback: 'fallback' | 'canned' | undefined
  readonly warnings: ValidationFailure | undefined
  /**
   * For a run on a stored conversation (`agent.session(id)`): where its exchange was committed.
   * `version` is the conversation's version after the commit, `basedOn` the version the run was
   * computed on, `staleBy` how many exchanges other runs committed in between (0: the run saw the
   * latest history).
   */
  readonly session?: { readonly id: string; readonly version: number; readonly basedOn: number; readonly staleBy: number }
}

/**
 * The result of a run that ended with an answer, as every path builds it: the exchange is the user's
 * message, the run's accepted tool turns and the answer; what was spent is read from `spent` (the
 * run's ledger, or its only gate call). The run is over: its arrays are handed over, not copied.
 */
export function runResultOf<T>(
  runId: string,
  user: Message,
  turns: readonly Message[],
  response: ModelResponse,
  value: T,
  functionsCalled: readonly FunctionCall[],
  spent: Spent,
  turnCount: number,
  provider: string,
  fromFallback: boolean,
  outputFallback: RunResult<T>['outputFallback'],
  warnings: RunResult<T>['warnings'],
): RunResult<T> {
  const answer: Message = { role: 'assistant', content: response.content }
  return {
    runId,
    text: response.content,
    value,
    response,
    functionsCalled,
    attempts: spent.attempts,
    usage: spent.usage,
    costUsd: spent.costUsd,
    turns: turnCount,
    exchange: turns.length === 0 ? [user, answer] : [user, ...turns, answer],
    provider,
    fromFallback,
    outputFallback,
    warnings,
  }
}
