import type { ReliabilityRule } from '../rules/rule.ts'
import { messageOf } from '../model/message-of.ts'
import { kindOf } from './check-rules.ts'
import { warnOnce } from './warn-once.ts'
import type { RunView } from './run/run-view.ts'

/** Where a rule misbehaved. */
export type RuleErrorPlace = 'when' | 'then' | 'feedbackForLLM' | 'delayMs'

/** Reports a rule that threw or gave something unusable (`rule_error`); the run goes on with a safe default. */
export function reportRuleError<T>(s: RunView<T>, rule: ReliabilityRule, where: RuleErrorPlace, error: unknown): void {
  const events = s.g.events
  const kind = kindOf(rule)
  if (events.has('rule_error')) {
    events.emit('rule_error', { runId: s.runId, ...s.tags, attempt: s.attempt + 1, kind, where, error })
    return
  }
  // Nobody listens: a broken rule is said once per rule and place, never skipped without a word.
  const shown = oneLine(kind, 100)
  warnOnce(
    s.g.warned,
    `rule\u0000${kind}\u0000${where}`,
    `reliability-gate: the ${where} of rule "${shown}" failed (${oneLine(messageOf(error), 200)}); the run went on with a safe default. Listen to 'rule_error' to handle it.`,
    'RELIABILITY_GATE_RULE_ERROR',
  )
}

/** A bounded, single-line rendering of text a rule or its error chose. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ')
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}
