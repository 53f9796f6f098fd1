import type { Decision, ReliabilityRule } from '../rules/rule.ts'
import { attemptRecord, type AttemptOutcome } from './attempt-outcome.ts'
import type { ResolvedProvider } from './resolved-provider.ts'
import type { RunState } from './run-state.ts'

/** Appends the log of the current attempt, with what was decided about it. */
export function recordAttempt<T>(
  s: RunState<T>,
  outcome: AttemptOutcome<T>,
  decision: Decision,
  ruleKind: string,
  rule: ReliabilityRule | undefined,
  feedbackSent: string | undefined,
): void {
  const provider = (s.g.providers[s.providerIdx] as ResolvedProvider).name
  const record = attemptRecord(outcome, s.attempt + 1, provider, s.base.model, decision, ruleKind, rule, feedbackSent, s.lastTime - s.started)
  // Most runs log a single attempt: a one-slot array rather than an empty one grown to 17 slots.
  if (s.records.length === 0) s.records = [record]
  else s.records.push(record)
}
