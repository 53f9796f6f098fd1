import type { EventHub } from '../../events/event-hub.ts'
import type { EventTags, GateEventMap } from '../../events/event-map.ts'
import type { NoProgressVerdict } from './no-progress-verdict.ts'

/** Where a run reports its rungs: its hub, its id (and tags: the agent's turn and metadata), and which host it is. */
export interface NoProgressReport {
  readonly events: EventHub
  readonly runId: string
  readonly tags?: EventTags | undefined
  readonly host: GateEventMap['no_progress']['host']
}

/** Emits `no_progress` for a verdict (only when someone listens), before the rung is acted on. */
export function emitNoProgress(report: NoProgressReport, verdict: NoProgressVerdict): void {
  const { events } = report
  if (!events.has('no_progress')) return
  events.emit('no_progress', {
    runId: report.runId,
    ...report.tags,
    host: report.host,
    step: verdict.step,
    pattern: verdict.pattern,
    tools: verdict.tools,
    count: verdict.count,
    threshold: verdict.threshold,
    turnsSinceProgress: verdict.turnsSinceProgress,
    usage: verdict.usage,
    costUsd: verdict.costUsd,
    usageKnown: verdict.usageKnown,
  })
}

/** The reason a run stopped with kind `no-progress`: the loop, and what it spent after progress stopped. */
export function noProgressReason(verdict: NoProgressVerdict): string {
  const what = verdict.tools.length === 0 ? 'the same text' : verdict.tools.map((t) => JSON.stringify(t.slice(0, 64))).join(' and ')
  const tokens = verdict.usage.inputTokens + verdict.usage.outputTokens
  const spent = verdict.usageKnown ? `${tokens} tokens, $${verdict.costUsd.toFixed(6)}` : `at least ${tokens} tokens (some turns' usage unknown)`
  return `no progress: ${verdict.pattern} of ${what} (${verdict.count}, threshold ${verdict.threshold}) went on after a nudge and a forced change; ${verdict.turnsSinceProgress} turns and ${spent} spent since progress stopped`
}
