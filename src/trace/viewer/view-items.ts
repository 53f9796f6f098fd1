import { issueProblem } from '../../validation/feedback/describe-issue.ts'
import type { ValidationIssue } from '../../validation/issue.ts'
import type { Fields } from './read-fields.ts'
import type { ViewAttempt, ViewFailure, ViewMessage, ViewRun } from './trace-model.ts'

/** A run as the viewer starts it, before any of its records is applied. */
export function newRun(runId: string, ts: number, metadata: Readonly<Record<string, unknown>> | undefined): ViewRun {
  return {
    runId,
    kind: 'gate',
    name: undefined,
    startedAt: ts,
    endedAt: undefined,
    outcome: 'unfinished',
    failKind: undefined,
    reason: undefined,
    metadata,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    unpricedAttempts: 0,
    models: [],
    kinds: [],
    timeline: [],
  }
}

/** The attempt of an `attempt_start` record. */
export function newAttempt(f: Fields): ViewAttempt {
  return {
    item: 'attempt',
    turn: f.number('turn'),
    attempt: f.number('attempt') ?? 0,
    provider: f.text('provider') ?? '?',
    model: f.text('model'),
    errorKind: 'pending',
    latencyMs: undefined,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    unpriced: false,
    rawOutput: undefined,
    toolCalls: [],
    finishReason: undefined,
    failures: [],
    repairs: [],
    decision: undefined,
    tail: undefined,
    feedback: undefined,
    failover: undefined,
    toolRetry: undefined,
    argsRejected: undefined,
    sent: ((tail) => (tail.length > 0 ? tail : undefined))(messagesOf(f.nested('request').list('tail'))),
    invalid: [],
  }
}

/** The messages of an ephemeral tail. */
export function messagesOf(list: readonly Fields[]): ViewMessage[] {
  return list.map((m) => ({ role: m.text('role') ?? '?', content: m.text('content') ?? '' }))
}

/** The failure of a `validation_failed` record. */
export function failureOf(f: Fields): ViewFailure {
  return {
    stage: f.text('stage') ?? '?',
    message: f.text('message') ?? '',
    issues: f.list('issues').map((i) => ({ path: i.text('path') ?? '', message: issueWording(i) })),
  }
}

/** The text of a note (fallbacks, budgets, breakers, drift, events not recorded). */
export function noteText(type: string, f: Fields): string {
  const n = (key: string) => String(f.number(key) ?? '?')
  const t = (key: string) => f.text(key) ?? '?'
  switch (type) {
    case 'recovered':
      return `recovered on attempt ${n('attempt')} after ${n('failedAttempts')} failed attempt(s)`
    case 'fallback':
      return `the configured fallback answered (rule ${t('kind')})`
    case 'budget_exceeded':
      return `budget of $${n('budgetUsd')} exceeded ($${n('spentUsd')} spent): ${t('action')}`
    case 'breaker_state':
      return `circuit breaker of ${t('provider')}: ${t('from')} → ${t('to')}`
    case 'drift':
      return `drift: ${t('signal')} ${t('state')} ${n('threshold')} for ${t('provider')}/${t('model')} (${n('value')})`
    case 'record_error':
      return `an event (${t('event')}) was not recorded: ${t('error')}`
    case 'needs_model_answer':
      // Written by a replay's page: where the replayed configuration asked what the trace never recorded.
      return `needs a model answer at attempt ${n('attempt')}: ${t('reason')}`
    default:
      return `${type}: ${f.text('reason') ?? f.text('kind') ?? ''}`
  }
}

/** An issue in the words the model was given (the feedback's), falling back to the validator's own message. */
function issueWording(issue: Fields): string {
  const message = issue.text('message') ?? ''
  try {
    const read = {
      path: issue.text('path') ?? '',
      segments: [],
      code: issue.text('code') ?? 'other',
      message,
      expected: issue.text('expected'),
      received: issue.text('received'),
    }
    return issueProblem(read as ValidationIssue)
  } catch {
    return message
  }
}
