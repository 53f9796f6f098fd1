import type { AttemptRecord } from '../gate/attempt-record.ts'
import type { Message } from '../model/message.ts'
import type { ModelResponse } from '../model/response.ts'
import type { Usage } from '../model/usage.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import type { FunctionCall } from './function-call.ts'

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
  /** The last of {@link attempts}: the attempt whose answer ended the run (as on a gate result and on the thrown error). */
  readonly lastAttempt: AttemptRecord | undefined
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

/** How a run ended with an answer: the accepted gate result, or the answer that stood or the output fallback's. */
export interface RunEnding<T> {
  readonly response: ModelResponse
  readonly value: T
  readonly provider: string
  readonly fromFallback: boolean
  /** Which output-fallback tier answered (absent: none). */
  readonly outputFallback?: RunResult<T>['outputFallback']
  readonly warnings: RunResult<T>['warnings']
}

/**
 * A finished run as a projection reads it: the answer's text and value, and the whole
 * {@link RunResult}, built only when asked (`runTyped` reads the value and builds nothing more).
 */
export interface FinishedRun<T> {
  readonly text: string
  readonly value: T
  /** The whole result (`runDetailed`'s); made on each call. */
  result(): RunResult<T>
}

/** What the caller wants of a finished run: the text (`run`), the value (`runTyped`) or the whole result (`runDetailed`). */
export type RunProjection<T, R> = (run: FinishedRun<T>) => R
