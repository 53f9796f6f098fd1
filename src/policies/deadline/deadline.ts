import { ProviderError } from '../../model/provider-error.ts'
import type { ChainAttempt } from '../chain-attempt.ts'
import type { Stage } from '../stage.ts'
import { cancelDeadline, type DeadlineEntry, scheduleDeadline } from './deadline-queue.ts'

/**
 * The deadline policy, the outermost stage: the rest of the attempt (the check, the policies and
 * their stores, the user's links, the provider call) must answer within `timeoutMs`. The links after
 * it receive the attempt's signal, which aborts on the timeout (with a `ProviderError` of kind
 * `timeout`) or when the run's own signal aborts; the attempt settles at once either way, even if
 * what it waits for ignores its signal. A deadline that is met costs no timer of its own (see
 * `scheduleDeadline`), and no signal unless a link or the provider reads it.
 */
export function deadlineStage(timeoutMs: number): Stage<DeadlineEntry, ChainAttempt> {
  const expire = (attempt: ChainAttempt): void => {
    const provider = attempt.provider
    attempt.stop(new ProviderError(`provider "${provider}" did not answer within ${timeoutMs} ms`, { kind: 'timeout', provider }))
  }
  return {
    name: 'deadline',
    stops: true,
    enter(attempt) {
      return scheduleDeadline(timeoutMs, expire, attempt)
    },
    leave(_attempt, entry, response) {
      cancelDeadline(entry)
      return response
    },
    fail(_attempt, entry) {
      cancelDeadline(entry)
    },
  }
}
