import type { ReliabilityRule } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'

/**
 * The wait a rule asks for before the next attempt: any finite length (long ones are slept in
 * chunks). A delay that is not a finite number (NaN, Infinity, a string) or a function that throws
 * is reported as `rule_error` and means no wait.
 */
export function ruleDelay(rule: ReliabilityRule | undefined, scope: ReliabilityScope, onError: (error: unknown) => void): number {
  const d = rule?.delayMs
  if (d === undefined) return 0
  let ms: unknown
  try {
    ms = typeof d === 'function' ? d(scope) : d
  } catch (error) {
    onError(error)
    return 0
  }
  if (typeof ms === 'number' && Number.isFinite(ms)) return ms > 0 ? ms : 0
  onError(new RangeError(`delayMs must be a finite number of ms, got ${typeof ms === 'number' ? String(ms) : typeof ms}`))
  return 0
}
