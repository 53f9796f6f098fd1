import { RunPause } from './approval/run-pause.ts'
import type { EventHub } from '../events/event-hub.ts'
import { emitValidationFailed } from '../events/validation-failed-event.ts'
import type { EventTags, GateEventMap } from '../events/event-map.ts'
import { isReliabilityFailFastError, phaseReason, ReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import { payloadFields } from '../gate/fail-fast-payload.ts'
import { shownValue } from '../model/describe-value.ts'
import type { Message } from '../model/message.ts'
import type { Phase } from '../rules/scope.ts'
import type { RunLedger, Spent } from './run-ledger.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'

/** Who an agent run's own events are about: its id, its tags and the agent's name. */
export interface RunIdentity {
  readonly runId: string
  readonly tags: EventTags
  readonly agent: string
}

/**
 * What a run's `commit` returns when the committer reports the run's end itself: a stored
 * conversation's run ends when its store answered, so `agent_run_end` (and `fail_fast` when the
 * commit failed) report what the caller received, never an `ok` the caller did not get.
 */
export const ENDS_AFTER_COMMIT: unique symbol = Symbol('ends after commit')

/** Where a run hands its accepted exchange over: a session's history, or a stored run's capture (see {@link ENDS_AFTER_COMMIT}). */
export interface RunCommit {
  // biome-ignore lint/suspicious/noConfusingVoidType: most commits return nothing; only a deferred end returns the marker.
  commit(exchange: readonly Message[]): void | typeof ENDS_AFTER_COMMIT
}

/** Emits `agent_run_end` (callers check `events.has('agent_run_end')` first). */
export function emitAgentRunEnd(
  events: EventHub,
  who: RunIdentity,
  end: {
    readonly outcome: GateEventMap['agent_run_end']['outcome']
    readonly kind: string
    readonly turns: number
    readonly outputFallback: 'fallback' | 'canned' | undefined
  },
  spent: Spent,
): void {
  events.emit('agent_run_end', {
    runId: who.runId,
    ...who.tags,
    agent: who.agent,
    outcome: end.outcome,
    kind: end.kind,
    turns: end.turns,
    attempts: spent.attempts.length,
    usage: spent.usage,
    costUsd: spent.costUsd,
    outputFallback: end.outputFallback,
  })
}

/** Emits `agent_run_end` for a run that failed with `error` (its kind, `unknown` for anything else), then rethrows it. */
export function endFailed(events: EventHub, who: RunIdentity, run: { readonly turns: number; readonly spent: Spent }, error: unknown): never {
  if (error instanceof RunPause) {
    // A run paused for an approval ends when the session has parked it: `approval-pending`, or the store's failure the caller gets.
    const { spent, turns } = run
    error.ended = (failure) => emitParkedRunEnd(events, who, { attempts: spent.attempts, usage: spent.usage, costUsd: spent.costUsd, turns }, failure)
    throw error
  }
  const kind = isReliabilityFailFastError(error) ? error.kind : 'unknown'
  if (events.has('agent_run_end')) emitAgentRunEnd(events, who, { outcome: 'fail-fast', kind, turns: run.turns, outputFallback: undefined }, run.spent)
  throw error
}

/** Emits the end of a run paused for an approval (nothing committed): `approval-pending` once parked, else what parking failed with (see {@link emitCommittedRunEnd}). */
function emitParkedRunEnd(events: EventHub, who: RunIdentity, run: Spent & { readonly turns: number }, failure: unknown): void {
  if (failure !== undefined) return emitCommittedRunEnd(events, who, run, failure)
  if (events.has('agent_run_end'))
    emitAgentRunEnd(events, who, { outcome: 'fail-fast', kind: 'approval-pending', turns: run.turns, outputFallback: undefined }, run)
}

/**
 * Emits the end of an accepted run whose exchange was then committed (see {@link ENDS_AFTER_COMMIT}):
 * `agent_run_end` ok when the commit succeeded; else `fail_fast` and `agent_run_end` with the
 * commit's failure (`session-store-failed`, `session-conflict`), the error the caller receives.
 */
export function emitCommittedRunEnd(
  events: EventHub,
  who: RunIdentity,
  run: Spent & { readonly turns: number; readonly outputFallback?: 'fallback' | 'canned' | undefined },
  failure?: unknown,
): void {
  const end = { turns: run.turns, outputFallback: run.outputFallback }
  if (failure === undefined) {
    if (events.has('agent_run_end')) emitAgentRunEnd(events, who, { outcome: 'ok', kind: 'ok', ...end }, run)
    return
  }
  const typed = isReliabilityFailFastError(failure)
  const kind = typed ? failure.kind : 'unknown'
  if (events.has('fail_fast')) {
    const reason = typed ? failure.reason : `the commit failed: ${shownValue(failure)}`
    const fields = typed
      ? payloadFields(failure)
      : { phase: 'post-decide' as const, providerUsed: run.attempts.at(-1)?.provider ?? '', errorKind: 'unknown' as const, errorMessage: shownValue(failure) }
    events.emit('fail_fast', { runId: who.runId, ...who.tags, attempt: run.attempts.length + 1, kind, reason, ...fields })
  }
  if (events.has('agent_run_end')) emitAgentRunEnd(events, who, { outcome: 'fail-fast', kind, ...end }, run)
}

/**
 * Emits `validation_failed` for a tool call's arguments, attributed to the latest model call of the
 * run (the one that produced them). `cumulativeRetries` is the ledger's count of the run's validation
 * failures so far: its gate calls' and its tool arguments'.
 */
export function emitToolArgsFailure(run: ToolArgsReport, failure: ValidationFailure, attempt: number): void {
  const { who, ledger } = run
  const last = ledger.attempts.at(-1)
  const from = {
    runId: who.runId,
    tags: who.tags,
    provider: last?.provider ?? 'unknown',
    model: last?.model,
    attempt,
    cumulativeRetries: ledger.validationFailures,
  }
  emitValidationFailed(run.events, from, failure)
}

/** Where a run reports the argument failures of its tool calls: its events, who it is, and its ledger (which counts them). */
export interface ToolArgsReport {
  readonly events: EventHub
  readonly who: RunIdentity
  readonly ledger: Pick<RunLedger, 'attempts' | 'validationFailures'>
}

/** Counts a tool call's argument failure in the run's ledger and reports it as `validation_failed` (who the run is, read only then). */
export function toolArgsFailed(
  run: { readonly events: EventHub; readonly ledger: RunLedger; readonly who: () => RunIdentity },
  failure: ValidationFailure,
  attempt: number,
): void {
  run.ledger.toolArgsFailed()
  if (run.events.has('validation_failed')) emitToolArgsFailure({ events: run.events, who: run.who(), ledger: run.ledger }, failure, attempt)
}

/** How a run ends in failure: its kind, why, in which phase, and the validation failure it stops on (a tool call's arguments). */
export interface RunStop {
  readonly kind: string
  readonly reason: string
  readonly phase: Phase
  readonly failure?: ValidationFailure | undefined
}

/** The error that ends an agent run (or a host's call), carrying the whole run's attempts and spend; `fail_fast` is emitted first. */
export function runFailure(events: EventHub, who: RunIdentity, spent: Spent, stop: RunStop): ReliabilityFailFastError {
  const { kind, phase, failure } = stop
  const reason = phaseReason(phase, stop.reason)
  const spend = { runId: who.runId, attempts: [...spent.attempts], usage: spent.usage, costUsd: spent.costUsd }
  const error = new ReliabilityFailFastError({ kind, reason, phase, ...spend, ...(failure === undefined ? {} : { validationError: failure, cause: failure }) })
  if (events.has('fail_fast'))
    events.emit('fail_fast', { runId: who.runId, ...who.tags, attempt: spent.attempts.length + 1, kind, reason, ...payloadFields(error) })
  return error
}
