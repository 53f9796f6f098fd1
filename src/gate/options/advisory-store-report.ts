import type { EventHub } from '../../events/event-hub.ts'
import { messageOf } from '../../model/message-of.ts'
import type { OnStoreError } from '../../policies/advisory-store.ts'
import { isUnreadableValue } from '../../store/unreadable-value.ts'
import { warnOnce } from '../warn-once.ts'
import { stateLostReport } from './state-lost-report.ts'

/**
 * What an advisory policy (the breaker, the rate limit) does with a failure of its store: a lost
 * state is reported as `state_lost`; a stored value it cannot read (a breaker record or a window
 * counter overwritten with something else) as a process warning, once per message, since the call
 * goes through and nothing else would say that the policy no longer counts.
 */
export function advisoryStoreReport(events: EventHub, warned: Set<string>, policy: 'breaker' | 'rate-limit'): OnStoreError {
  const lost = stateLostReport(events, policy)
  return (error, ctx) => {
    lost(error, ctx)
    if (!isUnreadableValue(error)) return
    const message = messageOf(error)
    warnOnce(
      warned,
      `unreadable\u0000${policy}\u0000${message}`,
      `reliability-gate: the ${policy === 'breaker' ? 'circuit breaker' : 'rate limit'} cannot read its state (${message}); calls go through (it is advisory) until the key is repaired or deleted.`,
      'RELIABILITY_GATE_STATE_UNREADABLE',
    )
  }
}
