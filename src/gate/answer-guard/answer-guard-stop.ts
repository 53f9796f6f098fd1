/**
 * A content guard's stop of one answer: the `output` guards (or the `stream` guards while it
 * streamed) asked to re-ask the model, blocked the answer or escalated. The attempt fails with an
 * {@link AnswerWithheldError} carrying it, and the loop acts on it before any rule (see
 * `guardVerdict`); nothing of the answer is kept.
 */
export interface AnswerGuardStop {
  readonly action: 'retry-with-feedback' | 'block' | 'escalate'
  readonly guard: string
  /** The guard's reason, or its feedback for the model (`retry-with-feedback`). */
  readonly reason: string
  readonly surface: 'output' | 'stream'
}

/**
 * What fails an attempt whose answer a content guard stopped: the answer is dropped (no record,
 * echo or result keeps its text), and the loop decides from its {@link AnswerGuardStop}.
 */
export class AnswerWithheldError extends Error {
  override readonly name = 'AnswerWithheldError'
  readonly stop: AnswerGuardStop

  constructor(stop: AnswerGuardStop) {
    super(`content guard '${stop.guard}' ${ACTION_TEXT[stop.action]} the ${stop.surface === 'stream' ? 'streamed answer' : 'answer'}: ${stop.reason}`)
    this.stop = stop
  }
}

const ACTION_TEXT: Readonly<Record<AnswerGuardStop['action'], string>> = {
  'retry-with-feedback': 'asked to re-ask the model about',
  block: 'blocked',
  escalate: 'escalated',
}

/** The guard's stop that failed an attempt, when a content guard failed it; never throws (a provider may reject with a hostile Proxy). */
export function answerStopOf(error: unknown): AnswerGuardStop | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  try {
    return error instanceof AnswerWithheldError ? error.stop : undefined
  } catch {
    return undefined
  }
}

// What a stream told of an attempt's answer before the answer stage reads it: the stream guards'
// stop, and whether some of its text already reached the consumer. Keyed by the attempt (dropped with it).
const streamStops = new WeakMap<object, AnswerGuardStop>()
const streamed = new WeakSet<object>()

/** The stream guards stopped `attempt`'s answer while it streamed. */
export function stopStreamedAnswer(attempt: object, stop: AnswerGuardStop): void {
  streamStops.set(attempt, stop)
}

/** Some of `attempt`'s text reached a stream's consumer: a redaction can no longer be applied to it. */
export function markDelivered(attempt: object): void {
  streamed.add(attempt)
}

/** What the stream told of `attempt` (see {@link stopStreamedAnswer}, {@link markDelivered}). */
export function streamedAnswer(attempt: object): { readonly stop: AnswerGuardStop | undefined; readonly delivered: boolean } {
  return { stop: streamStops.get(attempt), delivered: streamed.has(attempt) }
}
