import { typeName } from '../model/describe-value.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import { ERROR_CLASSES, type ErrorClass, errorClassOf, type RecoveryEstimate, type RecoveryProfileReader } from './recovery-estimate.ts'
import type { Decision, ReliabilityRule } from './rule.ts'
import type { ReliabilityScope } from './scope.ts'

/** Options of {@link adaptiveRetry}. */
export interface AdaptiveRetryOptions {
  /** Where recovery rates are read (a `reliabilityProfile()`). */
  readonly profile: RecoveryProfileReader
  /** The hard cap: never more attempts than this, whatever the profile says. @default 5 */
  readonly maxAttempts?: number
  /** Attempts allowed while the profile knows too little (as `strictOutputRules(n)`). @default 3 */
  readonly baselineAttempts?: number
  /** Retries an estimate must rest on before it is believed. @default 20 */
  readonly minTrials?: number
  /** Stop retrying (fail over when a provider is left, else fail fast) when the interval's upper bound is below this. @default 0.15 */
  readonly stopBelow?: number
  /** Allow retries up to `maxAttempts` when the interval's lower bound is at least this. @default 0.5 */
  readonly extendAbove?: number
  /** The error classes the rule decides on. @default every class but `transient` and `other` (left to `retryTransient`, `failoverRule`) */
  readonly classes?: readonly ErrorClass[]
}

/** The options contract of {@link adaptiveRetry}. */
const ADAPTIVE_RETRY = optionsContract<AdaptiveRetryOptions>('adaptiveRetry', {
  profile: option.where(
    'a reliability profile (recovery(key))',
    (v) => typeof v === 'object' && v !== null && typeof (v as RecoveryProfileReader).recovery === 'function',
  ),
  maxAttempts: option.integer(1, 100),
  baselineAttempts: option.integer(1, 100),
  minTrials: option.integer(1),
  stopBelow: option.fraction(),
  extendAbove: option.fraction(),
  // A misspelt class ('trasient') would never match: the rule would silently never apply.
  classes: option.where(`an array of error classes (${ERROR_CLASSES.join(', ')})`, (v) => Array.isArray(v) && v.every((c) => ERROR_CLASSES.includes(c))),
})

/** What the rule made of one failed attempt. */
interface Assessment {
  readonly decision: Decision | undefined
  readonly explanation: string
}

/**
 * PostDecide rules that spend retries where a reliability profile says they pay: for the failed
 * attempt's provider, model, error class and retry number, a recovery rate whose 95% interval lies
 * below `stopBelow` stops the retries (a fail-over to the next provider when one is left, else a
 * fail-fast of kind `adaptive-stop`); one whose interval lies at or above `extendAbove` allows
 * retries up to `maxAttempts`; anything else, or too few measured retries, retries up to
 * `baselineAttempts`. Never more than `maxAttempts` attempts. The `decision` event's `label` says
 * why: the estimate, its interval and how many retries it rests on.
 *
 * @example
 * const profile = reliabilityProfile({ store })
 * profile.observe(gate)
 * createGate({ providers: [primary, backup], outputSchema, postDecide: adaptiveRetry({ profile }) })
 */
export function adaptiveRetry(options: AdaptiveRetryOptions): readonly ReliabilityRule[] {
  if (typeof options !== 'object' || options === null) throw new TypeError(`adaptiveRetry: expected { profile }, got ${typeName(options)}`)
  const o = ADAPTIVE_RETRY.check(options)
  if (o.profile === undefined) throw new TypeError('adaptiveRetry: profile is required (a reliabilityProfile())')
  const cap = o.maxAttempts ?? 5
  const baseline = Math.min(o.baselineAttempts ?? 3, cap)
  const minTrials = o.minTrials ?? 20
  const stopBelow = o.stopBelow ?? 0.15
  const extendAbove = o.extendAbove ?? 0.5
  if (stopBelow > extendAbove) throw new RangeError(`adaptiveRetry: stopBelow (${stopBelow}) must not be above extendAbove (${extendAbove})`)
  const classes = o.classes === undefined ? undefined : new Set<string>(o.classes as readonly string[])
  const profile = o.profile
  const seen = new WeakMap<ReliabilityScope, Assessment | undefined>()
  // The explanation of the assessment the gate is acting on: a decision is emitted in the same turn as the `when` that matched.
  let lastExplanation = ''

  const assess = (scope: ReliabilityScope): Assessment | undefined => {
    if (seen.has(scope)) return seen.get(scope)
    const errorClass = errorClassOf({ errorKind: scope.errorKind, stage: scope.validationError?.stage, firstIssue: scope.validationError?.issues[0]?.code })
    const applies = errorClass !== undefined && (classes === undefined ? errorClass !== 'transient' && errorClass !== 'other' : classes.has(errorClass))
    const result = applies ? decide(scope, errorClass) : undefined
    seen.set(scope, result)
    return result
  }
  const decide = (scope: ReliabilityScope, errorClass: ErrorClass): Assessment => {
    const model = scope.attemptRequest?.model ?? scope.request.model
    const where = `${errorClass} on ${scope.providerName}${model === undefined ? '' : `/${model}`}, retry ${scope.attempt}`
    const answered: unknown = profile.recovery({ provider: scope.providerName, model, errorClass, retry: scope.attempt })
    // A profile of the user's may answer anything: what is not an estimate of finite numbers (a promise, NaN) is unknown.
    const estimate = isEstimate(answered) ? answered : undefined
    const known = estimate !== undefined && estimate.trials >= minTrials
    const measured = estimate === undefined ? 'no retries measured' : shown(estimate)
    if (scope.attempt >= cap) return { decision: undefined, explanation: `${where}: the hard cap of ${cap} attempts is reached (${measured})` }
    if (known && estimate.high < stopBelow) {
      const decision = scope.canSwitchProvider ? 'retry-other' : 'fail-fast'
      return { decision, explanation: `${where}: ${measured} is below ${stopBelow}: ${decision === 'retry-other' ? 'fail over' : 'stop retrying'}` }
    }
    if (known && estimate.low >= extendAbove)
      return { decision: 'retry', explanation: `${where}: ${measured} is at least ${extendAbove}: retry (up to ${cap} attempts)` }
    const limit = baseline
    if (scope.attempt < limit)
      return { decision: 'retry', explanation: `${where}: ${known ? measured : `${measured} (fewer than ${minTrials})`}: retry (up to ${limit} attempts)` }
    return { decision: undefined, explanation: `${where}: ${measured}: ${limit} attempts made` }
  }
  const rule = (then: Decision, kind: string, name: string): ReliabilityRule => {
    const when = {
      [name](scope: ReliabilityScope): boolean {
        const a = assess(scope)
        if (a?.decision !== then) return false
        lastExplanation = a.explanation
        return true
      },
    }[name] as (scope: ReliabilityScope) => boolean
    return Object.freeze({
      when,
      then,
      kind,
      failuresOnly: true,
      get label(): string {
        return lastExplanation === '' ? `adaptive retry (${kind})` : lastExplanation
      },
    })
  }
  return Object.freeze([
    rule('retry-other', 'adaptive-failover', 'adaptiveFailover'),
    rule('fail-fast', 'adaptive-stop', 'adaptiveStop'),
    rule('retry', 'adaptive-retry', 'adaptiveRetry'),
  ])
}

function shown(e: RecoveryEstimate): string {
  return `recovery ${e.rate.toFixed(2)} [${e.low.toFixed(2)}, ${e.high.toFixed(2)}] over ${e.trials} retries`
}

function isEstimate(value: unknown): value is RecoveryEstimate {
  if (typeof value !== 'object' || value === null || typeof (value as { then?: unknown }).then === 'function') return false
  const e = value as Record<string, unknown>
  return [e['trials'], e['recovered'], e['rate'], e['low'], e['high']].every((n) => typeof n === 'number' && Number.isFinite(n))
}
