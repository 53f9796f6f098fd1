import { callUser, type UserResult } from '../model/user-code.ts'
import type { ReliabilityRule } from '../rules/rule.ts'
import type { ReliabilityScope } from '../rules/scope.ts'

/**
 * The wait a rule asks for before the next attempt: any finite length (long ones are slept in
 * chunks). A function's answer goes through the one boundary into user code: a thenable is awaited
 * (bounded by `signal`, the run's). A delay that is not a finite number (NaN, Infinity, a string), a
 * function that throws or rejects, and a wait the run's signal ended are reported as `rule_error` and
 * mean no wait.
 */
export function ruleDelay(
  rule: ReliabilityRule | undefined,
  scope: ReliabilityScope,
  onError: (error: unknown) => void,
  signal?: AbortSignal,
): number | Promise<number> {
  const d = rule?.delayMs
  if (d === undefined) return 0
  const answer = typeof d === 'function' ? callUser(() => d(scope) as unknown, signal) : { ok: true as const, value: d as unknown }
  return answer instanceof Promise ? answer.then((settled) => delayOf(settled, onError)) : delayOf(answer, onError)
}

function delayOf(answer: UserResult<unknown>, onError: (error: unknown) => void): number {
  if (!answer.ok) {
    onError(answer.error)
    return 0
  }
  const ms = answer.value
  if (typeof ms === 'number' && Number.isFinite(ms)) return Math.max(ms, 0)
  onError(new RangeError(`delayMs must be a finite number of ms, got ${typeof ms === 'number' ? String(ms) : typeof ms}`))
  return 0
}
