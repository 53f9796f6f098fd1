import type { ErrorKind } from '../model/error-kind.ts'
import { isTransientKind } from '../model/error-kind.ts'
import type { IssueCode } from '../validation/issue.ts'
import type { ValidationStage } from '../validation/validation-failure.ts'

/**
 * What kind of failure a retry is asked to recover from: an answer that is not JSON (`parse`), a
 * schema violation by its first issue's keyword (`schema:missing_required`, `schema:invalid_type`,
 * ...), a cut answer (`truncation`), a transient provider failure (`transient`), invalid tool
 * arguments (`tool-args`), anything else (`other`).
 */
export type ErrorClass = 'parse' | `schema:${IssueCode}` | 'truncation' | 'transient' | 'tool-args' | 'other'

/** Every issue code, keyed so that a code added to `IssueCode` and missing here does not compile. */
const ISSUE_CODES: { readonly [C in IssueCode]: true } = {
  missing_required: true,
  invalid_type: true,
  invalid_format: true,
  unknown_property: true,
  invalid_enum: true,
  forbidden_key: true,
  other: true,
}

/** Every {@link ErrorClass}: what `adaptiveRetry({ classes })` may name. */
export const ERROR_CLASSES: readonly ErrorClass[] = Object.freeze([
  'parse',
  ...(Object.keys(ISSUE_CODES) as IssueCode[]).map((code): ErrorClass => `schema:${code}`),
  'truncation',
  'transient',
  'tool-args',
  'other',
] satisfies ErrorClass[])

/** The facts an error class is read from: an attempt's kind and, for a validation failure, its stage and first issue. */
export interface FailureFacts {
  readonly errorKind: ErrorKind | (string & {})
  readonly stage?: ValidationStage | undefined
  readonly firstIssue?: IssueCode | undefined
}

/** The {@link ErrorClass} of a failed attempt (`undefined` for an accepted one). */
export function errorClassOf(facts: FailureFacts): ErrorClass | undefined {
  const { errorKind, stage } = facts
  if (errorKind === 'ok') return undefined
  // A cut answer fails to parse too: it is the cut that a retry must recover from.
  if (errorKind === 'truncated') return 'truncation'
  if (stage === 'json-parse') return 'parse'
  if (stage === 'tool-args' || errorKind === 'tool-args-invalid') return 'tool-args'
  if (stage === 'schema-validate' || errorKind === 'schema-fail') return `schema:${facts.firstIssue ?? 'other'}`
  if (isTransientKind(errorKind as ErrorKind)) return 'transient'
  return 'other'
}

/** Where a recovery rate was measured: a provider and model, an error class, the retry's number (1 = the first retry). */
export interface RecoveryKey {
  readonly provider: string
  readonly model: string | undefined
  readonly errorClass: ErrorClass
  readonly retry: number
}

/** How often a retry recovered, with its 95% Wilson interval (continuity-corrected). */
export interface RecoveryEstimate {
  /** Retries made after such a failure. */
  readonly trials: number
  /** Of those, retries whose answer was accepted. */
  readonly recovered: number
  /** `recovered / trials`. */
  readonly rate: number
  /** The Wilson score interval's bounds (95%, continuity-corrected). */
  readonly low: number
  readonly high: number
}

/** Reads recovery estimates synchronously (a rule decides at once); what the adaptive rule asks a profile. */
export interface RecoveryProfileReader {
  /** The estimate for `key`, or `undefined` when nothing was measured there. */
  recovery(key: RecoveryKey): RecoveryEstimate | undefined
}

/** The largest retry number a profile keeps apart; later retries count under it. */
export const MAX_PROFILED_RETRY = 4

/**
 * The estimate of `recovered` out of `trials` with its Wilson score interval at `z` (1.96: 95%),
 * continuity-corrected (Newcombe's method 4): it stays inside 0..1, is honest for small counts and
 * rates near 0 or 1, and covers the true rate at least as often as it says (the plain Wilson
 * interval dips below 95% for some counts: 94.8% at 60 trials and a rate of 0.5).
 *
 * @example
 * wilson(8, 10) // { trials: 10, recovered: 8, rate: 0.8, low: 0.44, high: 0.96 } (rounded)
 */
export function wilson(recovered: number, trials: number, z = 1.96): RecoveryEstimate {
  if (!(trials > 0)) return { trials: 0, recovered: 0, rate: 0, low: 0, high: 1 }
  const n = trials
  const p = recovered / n
  const z2 = z * z
  const d = 2 * (n + z2)
  const low = recovered <= 0 ? 0 : (2 * n * p + z2 - (z * Math.sqrt(z2 - 1 / n + 4 * n * p * (1 - p) + (4 * p - 2)) + 1)) / d
  const high = recovered >= n ? 1 : (2 * n * p + z2 + (z * Math.sqrt(z2 - 1 / n + 4 * n * p * (1 - p) - (4 * p - 2)) + 1)) / d
  return { trials, recovered, rate: p, low: Math.max(0, low), high: Math.min(1, high) }
}
