import type { EventHub } from '../events/event-hub.ts'
import { emitValidationFailed } from '../events/validation-failed-event.ts'
import type { EventTags, GateEventMap } from '../events/event-map.ts'
import { ReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import type { Phase } from '../rules/scope.ts'
import type { RunLedger, Spent } from './run-ledger.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'

/** Who an agent run's own events are about: its id, its tags and the agent's name. */
export interface RunIdentity {
  readonly runId: string
  readonly tags: EventTags
  readonly agent: string
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

/**
 * Emits `validation_failed` for a tool call's arguments, attributed to the latest model call of the
 * run (the one that produced them). `cumulativeRetries` is the ledger's count of the run's validation
 * failures so far: its gate calls' and its tool arguments'.
 */
export function emitToolArgsFailure(
  events: EventHub,
  who: RunIdentity,
  ledger: Pick<RunLedger, 'attempts' | 'validationFailures'>,
  failure: ValidationFailure,
  attempt: number,
): void {
  const last = ledger.attempts.at(-1)
  const from = { runId: who.runId, tags: who.tags, provider: last?.provider ?? 'unknown', model: last?.model }
  emitValidationFailed(events, from, failure, attempt, ledger.validationFailures)
}

/** The error that ends an agent run, carrying the whole run's attempts and spend; `fail_fast` is emitted first. */
export function runFailure(events: EventHub, who: RunIdentity, spent: Spent, kind: string, reason: string, phase: Phase): ReliabilityFailFastError {
  if (events.has('fail_fast')) events.emit('fail_fast', { runId: who.runId, ...who.tags, attempt: spent.attempts.length + 1, kind, reason, phase })
  return new ReliabilityFailFastError({ kind, reason, phase, runId: who.runId, attempts: [...spent.attempts], usage: spent.usage, costUsd: spent.costUsd })
}
