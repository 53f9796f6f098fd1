import { shownValue, typeName } from '../model/describe-value.ts'
import { FailFastKinds } from '../model/fail-fast-kind.ts'
import { slipOf } from '../model/known-options.ts'
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
    const { label, delayMs, feedbackForLLM, failuresOnly, adjustRequest } = rule as Partial<Record<keyof ReliabilityRule, unknown>>
    if (label !== undefined && typeof label !== 'string') return `its label must be a string, got ${shownValue(label)}`
    if (delayMs !== undefined && typeof delayMs !== 'number' && typeof delayMs !== 'function')
      return `its delayMs must be a number or a function, got ${shownValue(delayMs)}`
    if (feedbackForLLM !== undefined && typeof feedbackForLLM !== 'string' && typeof feedbackForLLM !== 'function') {
      return `its feedbackForLLM must be a string or a function, got ${shownValue(feedbackForLLM)}`
    }
    if (failuresOnly !== undefined && typeof failuresOnly !== 'boolean') return `its failuresOnly must be a boolean, got ${shownValue(failuresOnly)}`
    if (adjustRequest !== undefined && typeof adjustRequest !== 'function') return `its adjustRequest must be a function, got ${shownValue(adjustRequest)}`
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
    const problem = ruleProblem(rule, phase) ?? misspeltKey(rule as object)
    if (problem !== undefined) throw new TypeError(`${label}[${i}] is not a rule: ${problem}`)
  })
  return [...rules]
}

/** Whether a rule says it only matches failed attempts; a rule whose field cannot be read (a getter, a proxy) is asked about every attempt. */
export function failuresOnlyOf(rule: ReliabilityRule): boolean {
  try {
    return rule.failuresOnly === true
  } catch {
    return false
  }
}

/** A rule's `kind` for events and logs: {@link INVALID_RULE} when it is not a string or cannot be read. */
export function kindOf(rule: ReliabilityRule): string {
  try {
    return typeof rule.kind === 'string' ? rule.kind : INVALID_RULE
  } catch {
    return INVALID_RULE
  }
}

/** Every key a rule is read by: a key that is a slip of one (`delayMS`) would be silently ignored. */
const RULE_KEYS: readonly string[] = Object.freeze(['when', 'then', 'kind', 'label', 'feedbackForLLM', 'delayMs', 'failuresOnly', 'adjustRequest'])

/** A key of `rule` that is a slip of a rule's key (see `slipOf`), as a problem; keys of its own (`id`, `budgetUsd`) pass. */
function misspeltKey(rule: object): string | undefined {
  let keys: readonly string[]
  try {
    keys = Object.keys(rule)
  } catch {
    return 'its keys cannot be read'
  }
  for (const key of keys) {
    const near = slipOf(key, RULE_KEYS)
    if (near !== undefined) return `its key ${JSON.stringify(key.slice(0, 60))} is read by no rule (did you mean "${near}"?)`
  }
  return undefined
}
