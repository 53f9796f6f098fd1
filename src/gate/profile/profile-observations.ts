import type { GateEvent } from '../../events/event-map.ts'
import { type ErrorClass, errorClassOf, MAX_PROFILED_RETRY } from '../../rules/recovery-estimate.ts'
import type { IssueCode } from '../../validation/issue.ts'
import type { ValidationStage } from '../../validation/validation-failure.ts'

/** One retry after a failure of a class, and whether its answer was accepted. */
export interface RetryObservation {
  readonly provider: string
  readonly model: string | undefined
  readonly errorClass: ErrorClass
  readonly retry: number
  readonly recovered: boolean
}

/** One gate call's totals, for attempts and cost per success (counted for the provider and model that answered last). */
export interface RunObservation {
  readonly provider: string
  readonly model: string | undefined
  readonly ok: boolean
  readonly attempts: number
  readonly costUsd: number
}

interface AttemptSeen {
  readonly provider: string
  readonly model: string | undefined
  readonly errorKind: string
  readonly stage: ValidationStage | undefined
  readonly firstIssue: IssueCode | undefined
}

/**
 * Turns a gate's events into what a profile counts, one gate call at a time (`run_start` to
 * `run_end` of a `runId`): each failed attempt followed by another attempt on the same provider and
 * model is a retry of the failure's class, recovered when that next attempt was accepted; the call's
 * outcome, attempts and cost are counted for the provider and model of its last attempt.
 */
export class ProfileObservations {
  readonly #calls = new Map<string, AttemptSeen[]>()
  /** The provider and model of each agent run's latest attempt: a tool call's argument retries are theirs. */
  readonly #lastModel = new Map<string, { readonly provider: string; readonly model: string | undefined }>()
  /** The agent runs under way (`agent_run_start` to `agent_run_end`): only theirs keep a last model past a gate call's end. */
  readonly #agentRuns = new Set<string>()
  /** The validation failure of the attempt under way (`validation_failed` fires before its `attempt_end`). */
  readonly #failing = new Map<string, { readonly stage: ValidationStage; readonly firstIssue: IssueCode | undefined }>()

  /** Reads one event; returns what a call that just ended adds to the profile. */
  read(event: GateEvent): { readonly retries: readonly RetryObservation[]; readonly run: RunObservation | undefined } | undefined {
    switch (event.type) {
      case 'run_start':
        this.#calls.set(event.runId, [])
        return undefined
      case 'attempt_end': {
        const failing = this.#failing.get(event.runId)
        this.#failing.delete(event.runId)
        this.#lastModel.set(event.runId, { provider: event.provider, model: event.model })
        this.#calls
          .get(event.runId)
          ?.push({ provider: event.provider, model: event.model, errorKind: event.errorKind, stage: failing?.stage, firstIssue: failing?.firstIssue })
        return undefined
      }
      case 'validation_failed':
        if (this.#calls.has(event.runId) && event.stage !== 'tool-args')
          this.#failing.set(event.runId, { stage: event.stage, firstIssue: event.issues[0]?.code })
        return undefined
      case 'tool_end': {
        // Each argument retry of a logical tool call is a retry of a `tool-args` failure; the last one recovered when the call went through.
        const by = this.#lastModel.get(event.runId)
        if (by === undefined || event.retryCount < 1) return undefined
        const retries: RetryObservation[] = []
        for (let retry = 1; retry <= event.retryCount; retry++) {
          const recovered = retry === event.retryCount && event.status === 'ok'
          retries.push({ ...by, errorClass: 'tool-args', retry: Math.min(retry, MAX_PROFILED_RETRY), recovered })
        }
        return { retries, run: undefined }
      }
      case 'agent_run_start':
        this.#agentRuns.add(event.runId)
        return undefined
      case 'agent_run_end':
        this.#agentRuns.delete(event.runId)
        this.#lastModel.delete(event.runId)
        return undefined
      case 'run_end': {
        const attempts = this.#calls.get(event.runId)
        this.#calls.delete(event.runId)
        this.#failing.delete(event.runId)
        // A gate run of no agent run (a plain one, even given a turn) has no agent run to end: its last model is forgotten with it.
        if (!this.#agentRuns.has(event.runId)) this.#lastModel.delete(event.runId)
        if (attempts === undefined) return undefined
        return { retries: retriesOf(attempts), run: runOf(attempts, event.outcome === 'ok', event.costUsd) }
      }
      default:
        return undefined
    }
  }
}

function retriesOf(attempts: readonly AttemptSeen[]): RetryObservation[] {
  const out: RetryObservation[] = []
  for (let i = 0; i + 1 < attempts.length; i++) {
    const failed = attempts[i] as AttemptSeen
    const next = attempts[i + 1] as AttemptSeen
    const errorClass = errorClassOf(failed)
    if (errorClass === undefined || next.provider !== failed.provider || next.model !== failed.model) continue
    out.push({ provider: failed.provider, model: failed.model, errorClass, retry: Math.min(i + 1, MAX_PROFILED_RETRY), recovered: next.errorKind === 'ok' })
  }
  return out
}

function runOf(attempts: readonly AttemptSeen[], ok: boolean, costUsd: number): RunObservation | undefined {
  const last = attempts.at(-1)
  if (last === undefined) return undefined
  return { provider: last.provider, model: last.model, ok, attempts: attempts.length, costUsd: Number.isFinite(costUsd) ? costUsd : 0 }
}
