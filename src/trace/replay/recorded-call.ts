import type { ErrorKind } from '../../model/error-kind.ts'
import type { Message } from '../../model/message.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { TraceRecord } from '../trace-record.ts'

/**
 * What the model (or the way to it) gave one recorded attempt: an answer to validate again, a
 * provider failure of a kind (a 429, a 5xx, a timeout; its message when the trace quotes it, in the
 * reason of the fail-fast it caused), or nothing at all because the gate never
 * called it (`circuit-open`, `budget-exceeded`: the replayed configuration decides those anew).
 */
export type RecordedAnswer =
  | { readonly kind: 'response'; readonly response: ModelResponse }
  | { readonly kind: 'error'; readonly errorKind: ErrorKind; readonly message: string | undefined }
  | { readonly kind: 'no-call'; readonly errorKind: ErrorKind }

/** One attempt of a recorded gate call, as the trace holds it. */
export interface RecordedAttempt {
  /** The gate's attempt number, from 1. */
  readonly attempt: number
  readonly provider: string
  readonly model: string | undefined
  readonly answer: RecordedAnswer
  /** The attempt's recorded cost in USD; `undefined` when the trace says it could not be priced. */
  readonly costUsd: number | undefined
  /** The ephemeral tail the attempt was sent, as recorded (role and content of each message). */
  readonly tail: string
}

/**
 * One gate call of a trace (`run_start` to `run_end` of one `runId`): a plain `gate.run`, or one
 * model call of an agent run (its turns and tool-argument retries share the agent run's `runId`).
 */
export interface RecordedCall {
  /** `runId`, followed by `#n` (the call's number in its run, from 1) when the run made several calls. */
  readonly id: string
  readonly runId: string
  /** The name of the agent whose run made the call (absent for a plain `gate.run`). */
  readonly agent: string | undefined
  /** The agent run's model turn, when the call belongs to one. */
  readonly turn: number | undefined
  readonly metadata: Readonly<Record<string, unknown>> | undefined
  /** The call retried a tool call's arguments (made while the call was open): its text is no final answer. */
  readonly toolRetry: boolean
  /** The model the request named (the first attempt's). */
  readonly model: string | undefined
  /** How many messages the base request held (the recorded count, without the ephemeral tail). */
  readonly baseMessages: number
  /**
   * The ephemeral messages the caller's request already ended with (an agent's tool-argument retry
   * sends the failed call and its error), as recorded on the first attempt.
   */
  readonly baseTail: readonly Message[]
  /** The recording had no pricing at all: its attempts were reported unpriced, and so are the replay's. */
  readonly unpriced: boolean
  /** Validation failures of the run before this call (`validation_failed.cumulativeRetries` counts on from it). */
  readonly validationFailuresBefore: number
  /** The providers the call used, in the order of their failover index, with the model each was asked for. */
  readonly providers: readonly { readonly name: string; readonly model: string | undefined }[]
  readonly attempts: readonly RecordedAttempt[]
  /** The call's records, `run_start` to `run_end`. */
  readonly records: readonly TraceRecord[]
}

/** A stretch of a trace that cannot be replayed, and why. */
export interface UnreplayableCall {
  readonly id: string
  readonly runId: string
  readonly reason: string
}
