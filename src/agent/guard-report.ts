import type { EventHub } from '../events/event-hub.ts'
import type { EventTags } from '../events/event-map.ts'
import type { GuardVerdictEvent } from '../events/guard-verdict-event.ts'
import type { GuardRecord } from '../validation/guards/index.ts'

/** Who a guard's verdict is reported for. */
export interface GuardReportTarget {
  readonly events: EventHub
  readonly runId: string
  readonly tags?: EventTags | undefined
  readonly host: GuardVerdictEvent['host']
}

/**
 * The `report` of `runContentGuards` for one run: each verdict a `guard_verdict` event (built only
 * when someone listens), before the verdict is acted on.
 */
export function guardReport(target: GuardReportTarget): ((record: GuardRecord) => void) | undefined {
  if (!target.events.has('guard_verdict')) return undefined
  return (record) => target.events.emit('guard_verdict', { runId: target.runId, ...target.tags, host: target.host, ...record })
}
