import { callUser } from '../model/user-code.ts'
import type { ReliabilityRule } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'

/**
 * The wait a rule asks for before the next attempt: any finite length (long ones are slept in
 * chunks). A delay that is not a finite number (NaN, Infinity, a string, a promise) or a function
 * that throws is reported as `rule_error` and means no wait.
 */
export function ruleDelay(rule: ReliabilityRule | undefined, scope: ReliabilityScope, onError: (error: unknown) => void): number {
  const d = rule?.delayMs
  if (d === undefined) return 0
  const answer = typeof d === 'function' ? callUser(() => d(scope) as unknown) : { ok: true as const, value: d as unknown }
  if (answer instanceof Promise) {
    // Contained: a delay is decided at once, so a promise of one is refused, and its rejection kept quiet.
    onError(new TypeError('delayMs must answer a number of ms synchronously, got a promise'))
    return 0
  }
  if (!answer.ok) {
    onError(answer.error)
    return 0
  }
  const ms = answer.value
  if (typeof ms === 'number' && Number.isFinite(ms)) return Math.max(ms, 0)
  onError(new RangeError(`delayMs must be a finite number of ms, got ${typeof ms === 'number' ? String(ms) : typeof ms}`))
  return 0
}
