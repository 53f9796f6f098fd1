import { messageOf } from '../model/message-of.ts'
import type { ReliabilityRule } from '../rules/rule.ts'
import type { AttemptOutcome } from './attempt-outcome.ts'

/** The `reason` of a fail-fast decision after an attempt: what went wrong, and who decided. */
export function reasonFor<T>(outcome: AttemptOutcome<T>, rule: ReliabilityRule | undefined): string {
  const by = rule !== undefined ? `rule ${rule.label ?? rule.kind} decided fail-fast` : 'no rule handled it'
  if (outcome.failure !== undefined) return `the answer failed validation (${outcome.failure.message}); ${by}`
  if (outcome.kind === 'refusal') return `the model refused to answer (${JSON.stringify(preview(outcome.response?.content ?? ''))}); ${by}`
  if (outcome.kind === 'truncated') {
    const calls = outcome.response?.toolCalls.length ?? 0
    return `the ${calls > 0 ? `turn calling ${calls === 1 ? 'a tool' : `${calls} tools`}` : 'answer'} was cut by the output token limit (stop reason max_tokens); ${by}`
  }
  if (outcome.error !== undefined || outcome.response === undefined) return `provider call failed (${outcome.kind}: ${messageOf(outcome.error)}); ${by}`
  return by
}

/** The start of a long text, for a one-line reason. */
function preview(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}
