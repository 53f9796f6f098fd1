import { FailFastKinds } from '../../model/fail-fast-kind.ts'
import type { ReliabilityRule } from '../../rules/rule.ts'
import type { AnswerGuardStop } from './answer-guard-stop.ts'

/** The kind of a re-ask a content guard asked for (`retry-with-feedback`), in the decision and the attempt log. */
export const GUARD_RETRY = 'guard-retry'

/** What the loop does with a content guard's stop: the rule that decides it (first, before the user's), and the run's reason if it ends there. */
export interface GuardVerdict {
  readonly rule: ReliabilityRule
  readonly reason: string
}

/**
 * A content guard's stop of an answer as a decision of the one loop: `retry-with-feedback`
 * re-asks with the guard's feedback as the ephemeral tail (no echo of the withheld answer; the
 * safety cap holds), `block` fails fast with kind `guard-blocked`, `escalate` with
 * `guard-escalated` (the run stops for a human). A stream that already delivered text turns a
 * re-ask into `mid-stream-not-retryable`, as for any other retry.
 */
export function guardVerdict(stop: AnswerGuardStop): GuardVerdict {
  const label = `content guard '${stop.guard}' (${stop.surface})`
  const what = stop.surface === 'stream' ? 'the streamed answer' : 'the answer'
  switch (stop.action) {
    case 'retry-with-feedback':
      return {
        rule: Object.freeze({ when: always, then: 'retry', kind: GUARD_RETRY, label, feedbackForLLM: stop.reason }),
        reason: `${label} asked to re-ask the model about ${what}: ${stop.reason}`,
      }
    case 'block':
      return {
        rule: Object.freeze({ when: always, then: 'fail-fast', kind: FailFastKinds.GuardBlocked, label }),
        reason: `${label} blocked ${what}: ${stop.reason}`,
      }
    case 'escalate':
      return {
        rule: Object.freeze({ when: always, then: 'fail-fast', kind: FailFastKinds.GuardEscalated, label }),
        reason: `${label} escalated ${what} for a human: ${stop.reason}`,
      }
  }
}

function always(): boolean {
  return true
}
