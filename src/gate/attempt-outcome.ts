import type { ErrorKind } from '../model/error-kind.ts'
import type { ModelResponse } from '../model/response.ts'
import { type Usage, ZERO_USAGE } from '../model/usage.ts'
import type { Decision, ReliabilityRule } from '../rules/rule.ts'
import { MAX_PROBLEM, oneLine } from '../validation/feedback/feedback-limits.ts'
import { attemptLogLine } from '../validation/feedback/template-vars.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import type { AttemptRecord } from './attempt-record.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import type { RunView } from './run/run-view.ts'
import { attemptStatus } from './attempt-status.ts'
import { errorName, messageOf } from '../model/message-of.ts'

/** The outcome of one provider call plus validation, before any decision (the ended attempt itself: see `endAttempt`). */
export interface AttemptOutcome<T> {
  readonly response: ModelResponse | undefined
  readonly error: unknown
  readonly kind: ErrorKind
  readonly retryAfterMs: number | undefined
  readonly failure: ValidationFailure | undefined
  readonly value: T | string | undefined
  /** Repairs applied to the JSON before it passed the schema (empty when none). */
  readonly repairs: readonly string[]
  readonly latencyMs: number
  /** What the meter read of an answer; `undefined` when no answer was metered. */
  readonly usage: Usage | undefined
  readonly costUsd: number
  /** Why the answer's cost could not be priced (`costUsd` is then 0); `undefined` when it was. */
  readonly unpriced: string | undefined
}

// Shared by every log entry with nothing to list (read-only).
const NONE: readonly never[] = Object.freeze([])

/** What was decided about an attempt: the decision, the kind it gave, the rule that matched, the feedback sent for a retry. */
export interface RecordDecision {
  readonly decision: Decision
  readonly kind: string
  readonly rule: ReliabilityRule | undefined
  readonly feedback: string | undefined
}

// An acceptance no rule made, shared by every run (read-only): ~48 B per plain run.
const ACCEPTED: RecordDecision = Object.freeze({ decision: 'ok', kind: 'ok', rule: undefined, feedback: undefined })

/** The decision of an `ok` verdict of kind `kind` by `rule` (none: the check accepted the answer). */
export function acceptedDecision(kind: string, rule: ReliabilityRule | undefined): RecordDecision {
  return kind === 'ok' && rule === undefined ? ACCEPTED : { decision: 'ok', kind, rule, feedback: undefined }
}

/** The attempt log entry of the run's latest outcome: where and when it ran (the run as it stands), and what was decided about it. */
export function attemptRecord(outcome: AttemptOutcome<unknown>, run: RunView<unknown>, decided: RecordDecision): AttemptRecord {
  const f = outcome.failure
  return {
    attempt: run.attempt + 1,
    provider: (run.g.providers[run.providerIdx] as ResolvedProvider).name,
    model: run.base.model,
    status: attemptStatus(outcome.kind, f?.stage),
    errorKind: outcome.kind,
    rawOutput: outcome.response?.content,
    validationStage: f?.stage,
    issues: f?.issues ?? NONE,
    errorType: f !== undefined ? (f.stage === 'json-parse' ? 'parse' : 'schema') : errorName(outcome.error),
    // A call that failed has an error line even when what it threw was `undefined`.
    errors: f !== undefined ? errorLines(f) : outcome.error !== undefined || outcome.response === undefined ? [messageOf(outcome.error)] : NONE,
    error: outcome.error,
    decision: decided.decision,
    ruleKind: decided.kind,
    ruleLabel: decided.rule?.label,
    feedbackSent: decided.feedback,
    repaired: outcome.repairs.length > 0,
    latencyMs: outcome.latencyMs,
    elapsedMs: run.lastTime - run.started,
    usage: outcome.usage ?? ZERO_USAGE,
    costUsd: outcome.costUsd,
    unpriced: outcome.unpriced !== undefined,
  }
}

/** One line per issue as pyconveyor logs it (`loc_str: msg`); the parse error, else the failure's message, when it has none. */
function errorLines(f: ValidationFailure): string[] {
  // A parse error is logged in the parser's words, as pyconveyor logs it (`errors = [str(e)]`), bounded as in `message`.
  if (f.issues.length === 0) return [f.parseError === undefined ? f.message : oneLine(f.parseError, MAX_PROBLEM)]
  return f.issues.map(attemptLogLine)
}
