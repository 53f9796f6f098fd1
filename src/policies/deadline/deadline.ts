import { ProviderError } from '../../model/provider-error.ts'
import { type Link, stageLink } from '../link.ts'
import type { Stage, StageRun } from '../stage.ts'
import { cancelDeadline, type DeadlineEntry, scheduleDeadline } from './deadline-queue.ts'

/**
 * The deadline policy, the outermost link: the rest of the attempt (the check, the policies and
 * their stores, the user's links, the provider call) must answer within `timeoutMs`. The links after
 * it receive the attempt's signal, which aborts on the timeout (with a `ProviderError` of kind
 * `timeout`) or when the run's own signal aborts; the attempt settles at once either way, even if
 * what it waits for ignores its signal. A deadline that is met costs no timer of its own (see
 * `scheduleDeadline`), and no signal unless a link or the provider reads it.
 */
export function deadline(timeoutMs: number): Link {
  return stageLink(deadlineStage(timeoutMs))
}

/** The deadline as a stage of the attempt chain (see {@link deadline}). */
function deadlineStage(timeoutMs: number): Stage<DeadlineEntry> {
  const expire = (run: StageRun): void => {
    const provider = run.context.provider
    run.stop(new ProviderError(`provider "${provider}" did not answer within ${timeoutMs} ms`, { kind: 'timeout', provider }))
  }
  return {
    name: 'deadline',
    stops: true,
    enter(_ctx, run) {
      return scheduleDeadline(timeoutMs, expire, run)
    },
    leave(_ctx, entry, result) {
      cancelDeadline(entry)
      return result
    },
    fail(_ctx, entry) {
      cancelDeadline(entry)
    },
  }
}
