import type { EventHub } from '../../events/event-hub.ts'
import type { EventTags } from '../../events/event-map.ts'
import type { GuardRecord } from '../../validation/guards/index.ts'

/**
 * The `report` of the gate's own content guards (the `output` and `stream` surfaces) for one run:
 * each verdict a `guard_verdict` event of host `gate`, emitted before it is acted on; `undefined`
 * (nothing built) when nobody listens.
 */
export function gateGuardReport(events: EventHub, runId: string, tags: EventTags | undefined): ((record: GuardRecord) => void) | undefined {
  if (!events.has('guard_verdict')) return undefined
  return (record) => events.emit('guard_verdict', { runId, ...tags, host: 'gate', ...record })
}
