import type { ModelResponse } from '../../model/response.ts'
import type { Stage } from '../../policies/stage.ts'
import { type ContentGuard, type GuardOutcome, runContentGuards } from '../../validation/guards/index.ts'
import type { GateAttempt } from '../run/gate-attempt.ts'
import { type AnswerGuardStop, AnswerWithheldError, streamedAnswer } from './answer-guard-stop.ts'
import { gateGuardReport } from './gate-guard-report.ts'

/**
 * The answer stage of the attempt chain, present only when the gate has `output` or `stream` guards: between
 * the meter and the check, so every answer's text passes the guards before anything reads it. A
 * redaction replaces the text, and the check then validates the redacted answer against the output
 * schema (a redaction that breaks a required field is a schema failure, re-asked through the rules
 * like any other, never an accepted invalid value); a re-ask, a block or an escalation fails the
 * attempt with an {@link AnswerWithheldError}, so no record, echo or result keeps its text, and the
 * loop acts on the guard's verdict before any rule (so does a stop of the `stream` guards while the
 * answer streamed: see `heldText`). The guards run inside the attempt's deadline
 * and signal, through the one guard runner (a guard that throws or never settles fails closed
 * unless made `onError: 'open'`).
 */
export function answerGuardStage(guards: readonly ContentGuard[], tailGuards: readonly ContentGuard[] = []): Stage<undefined, GateAttempt<unknown>> {
  return Object.freeze({
    name: 'output-guards',
    leave: (attempt: GateAttempt<unknown>, _token: undefined, response: ModelResponse) =>
      tailGuards.length === 0
        ? guardAnswer(attempt, response, guards)
        : withScreenedFeedback(attempt, tailGuards, () => guardAnswer(attempt, response, guards)),
  })
}

function guardAnswer(attempt: GateAttempt<unknown>, response: ModelResponse, guards: readonly ContentGuard[]): ModelResponse | Promise<ModelResponse> {
  if (attempt.closed) return response
  const streamed = streamedAnswer(attempt)
  // The stream guards stopped it while it streamed: nothing more to screen.
  if (streamed.stop !== undefined) throw new AnswerWithheldError(streamed.stop)
  if (guards.length === 0 || response.content === '') return response
  const run = attempt.run
  const report = gateGuardReport(run.g.events, run.runId, run.tags)
  const signal = attempt.request.signal ?? run.signal
  return runContentGuards(guards, { surface: 'output', text: response.content, signal, report }).then((outcome) => {
    // The attempt's deadline (or the run's abort) cut the guards short: the attempt ends as that says, for the rules to decide.
    if (signal?.aborted === true) throw signal.reason
    return decided(attempt, response, outcome, streamed.delivered)
  })
}

/**
 * A guard's re-ask feedback is the retry tail the provider is sent next: it passes the
 * `retry-tail` guards first (redacted, or replaced by a notice when they stop it), so a guard's
 * feedback never carries to the provider what a guard removes.
 */
async function withScreenedFeedback(
  attempt: GateAttempt<unknown>,
  tailGuards: readonly ContentGuard[],
  answer: () => ModelResponse | Promise<ModelResponse>,
): Promise<ModelResponse> {
  try {
    return await answer()
  } catch (error) {
    const stop = error instanceof AnswerWithheldError ? error.stop : undefined
    if (stop?.action !== 'retry-with-feedback') throw error
    const run = attempt.run
    const report = gateGuardReport(run.g.events, run.runId, run.tags)
    const signal = attempt.request.signal ?? run.signal
    const outcome = await runContentGuards(tailGuards, { surface: 'retry-tail', text: stop.reason, signal, report })
    if (outcome.action === 'allow') throw error
    const reason = outcome.action === 'redact' ? outcome.text : WITHHELD_FEEDBACK
    throw new AnswerWithheldError({ ...stop, reason })
  }
}

const WITHHELD_FEEDBACK = 'The previous answer was withheld by a content guard. Answer again.'

function decided(attempt: GateAttempt<unknown>, response: ModelResponse, outcome: GuardOutcome, delivered: boolean): ModelResponse {
  if (attempt.closed || outcome.action === 'allow') return response
  if (outcome.action === 'redact') {
    // Text a stream already delivered cannot be taken back: the answer is re-asked instead (a
    // passthrough stream then fails as `mid-stream-not-retryable`), so the result never disagrees
    // with what was delivered.
    if (delivered) {
      const guard = outcome.guards.join(', ')
      const reason = `The previous answer held content that cannot be shown (content guard '${guard}' redacts it), after part of it was streamed. Answer again without that content.`
      throw new AnswerWithheldError({ action: 'retry-with-feedback', guard, reason, surface: 'output' })
    }
    const redacted: ModelResponse = { ...response, content: outcome.text }
    attempt.response = redacted
    return redacted
  }
  const stop: AnswerGuardStop = { action: outcome.action, guard: outcome.guard, reason: outcome.reason, surface: 'output' }
  throw new AnswerWithheldError(stop)
}
