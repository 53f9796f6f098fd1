import { shownValue, typeName } from '../model/describe-value.ts'
import { FailFastKinds } from '../model/fail-fast-kind.ts'
import type { Decision, ReliabilityRule } from '../rules/rule.ts'
import type { Phase } from '../rules/scope.ts'

const DECISIONS: ReadonlySet<unknown> = new Set<Decision>(['ok', 'retry', 'retry-other', 'fallback', 'fail-fast'])

/** The kind a run fails with when a matching rule turns out not to be a rule (its `then` is no Decision). */
export const INVALID_RULE = FailFastKinds.InvalidRule

/**
 * What is wrong with a rule, or `undefined` when nothing is: `when` must be a function, `then` a
 * {@link Decision} (or `'continue'` in PreCheck), `kind` a non-empty string. Never throws (a rule whose
 * fields cannot be read is a problem too).
 */
export function ruleProblem(rule: unknown, phase: Phase): string | undefined {
  try {
    if (typeof rule !== 'object' || rule === null) return `expected a rule object, got ${typeName(rule)}`
    const { when, then, kind } = rule as Partial<Record<keyof ReliabilityRule, unknown>>
    if (typeof when !== 'function') return `its when must be a function, got ${typeof when}`
    if (then === 'continue' && phase === 'post-decide') return `its then 'continue' is a PreCheck decision: a PostDecide rule says ${[...DECISIONS].join(', ')}`
    if (!DECISIONS.has(then) && then !== 'continue')
      return `its then must be one of ${[...DECISIONS].join(', ')}${phase === 'pre-check' ? ', continue' : ''}, got ${shownValue(then)}`
    if (typeof kind !== 'string' || kind === '') return `its kind must be a non-empty string, got ${shownValue(kind)}`
    const { label, delayMs, feedbackForLLM } = rule as Partial<Record<keyof ReliabilityRule, unknown>>
    if (label !== undefined && typeof label !== 'string') return `its label must be a string, got ${shownValue(label)}`
    if (delayMs !== undefined && typeof delayMs !== 'number' && typeof delayMs !== 'function')
      return `its delayMs must be a number or a function, got ${shownValue(delayMs)}`
    if (feedbackForLLM !== undefined && typeof feedbackForLLM !== 'string' && typeof feedbackForLLM !== 'function') {
      return `its feedbackForLLM must be a string or a function, got ${shownValue(feedbackForLLM)}`
    }
    return undefined
  } catch {
    return 'its fields cannot be read'
  }
}

/** Checks a configured list of rules of `phase` once, at creation: a broken rule fails there, not mid-run. */
export function checkRules(rules: readonly ReliabilityRule[] | undefined, label: string, phase: Phase): readonly ReliabilityRule[] {
  if (rules === undefined) return []
  if (!Array.isArray(rules)) throw new TypeError(`${label} must be an array of rules`)
  rules.forEach((rule: unknown, i) => {
    const problem = ruleProblem(rule, phase)
    if (problem !== undefined) throw new TypeError(`${label}[${i}] is not a rule: ${problem}`)
  })
  return [...rules]
}

/** A rule's `kind` for events and logs: {@link INVALID_RULE} when it is not a string or cannot be read. */
export function kindOf(rule: ReliabilityRule): string {
  try {
    return typeof rule.kind === 'string' ? rule.kind : INVALID_RULE
  } catch {
    return INVALID_RULE
  }
}
