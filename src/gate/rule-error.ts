import type { ReliabilityRule } from '../rules/rule.ts'
import { kindOf } from './check-rules.ts'
import type { RunView } from './run/run-view.ts'

/** Where a rule misbehaved. */
export type RuleErrorPlace = 'when' | 'then' | 'feedbackForLLM' | 'delayMs'

/** Reports a rule that threw or gave something unusable (`rule_error`); the run goes on with a safe default. */
export function reportRuleError<T>(s: RunView<T>, rule: ReliabilityRule, where: RuleErrorPlace, error: unknown): void {
  const events = s.g.events
  if (events.has('rule_error')) events.emit('rule_error', { runId: s.runId, ...s.tags, attempt: s.attempt + 1, kind: kindOf(rule), where, error })
}
