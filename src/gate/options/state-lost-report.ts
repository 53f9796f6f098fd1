import type { EventHub } from '../../events/event-hub.ts'
import { eventTags } from '../../events/event-tags.ts'
import type { OnStoreError } from '../../policies/advisory-store.ts'
import { isStateLostError } from '../../store/state-lost-error.ts'

/**
 * What a policy of the gate does with a failure of its store: a `StateLostError` is reported as
 * `state_lost`, once per loss (a budget latched closed throws the same error on every attempt until
 * it is re-armed); any other failure is the policy's own business (advisory, or failing closed).
 */
export function stateLostReport(events: EventHub, policy: 'budget' | 'breaker' | 'rate-limit'): OnStoreError {
  let reported: unknown
  return (error, ctx) => {
    if (!isStateLostError(error) || error === reported) return
    reported = error
    if (!events.has('state_lost')) return
    events.emit('state_lost', {
      runId: ctx.runId,
      ...eventTags(ctx.turn, ctx.metadata),
      policy,
      provider: ctx.provider,
      key: error.key,
      seen: error.seen,
      found: error.found,
      message: error.message,
    })
  }
}
