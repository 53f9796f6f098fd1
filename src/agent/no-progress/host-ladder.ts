import { ReliabilityFailFastError } from '../../gate/fail-fast-error.ts'
import { FailFastKinds } from '../../model/fail-fast-kind.ts'
import type { Message } from '../../model/message.ts'
import { emitNoProgress, type NoProgressReport, noProgressReason } from './emit-no-progress.ts'
import { historyTurns } from './history-turns.ts'
import { lastVerdict } from './no-progress-detector.ts'
import type { NoProgressSettings } from './no-progress-options.ts'
import type { NoProgressVerdict } from './no-progress-verdict.ts'

/** Where a host reports its rungs: its hub, the run the model call belongs to, and which host it is. */
export type HostLadderReport = Omit<NoProgressReport, 'tags'>

/**
 * The rung a host's next model call is on, from the conversation it is about to send (the same
 * detector and thresholds as the Agent's loop, replayed over the turns since the last user message):
 * emitted as `no_progress`; a `stop` throws the `no-progress` failure before the model is called.
 * `undefined` when detection is off or the run is making progress.
 */
export function hostVerdict(settings: NoProgressSettings | undefined, messages: readonly Message[], report: HostLadderReport): NoProgressVerdict | undefined {
  if (settings === undefined) return undefined
  const verdict = lastVerdict(settings, historyTurns(messages))
  if (verdict === undefined) return undefined
  emitNoProgress(report, verdict)
  if (verdict.step === 'stop') throw noProgressError(verdict, report.runId)
  return verdict
}

/** The typed stop of a host's run: kind `no-progress`, with what was spent since progress stopped (as far as the host knows). */
export function noProgressError(verdict: NoProgressVerdict, runId: string): ReliabilityFailFastError {
  return new ReliabilityFailFastError({
    kind: FailFastKinds.NoProgress,
    reason: noProgressReason(verdict),
    phase: 'pre-check',
    runId,
    attempts: [],
    usage: verdict.usage,
    costUsd: verdict.costUsd,
  })
}

/** The looping tools the forced change leaves out of the next call (empty: send it with `toolChoice: 'none'`). */
export function withheldTools(verdict: NoProgressVerdict): readonly string[] {
  const forced = verdict.forced
  return forced !== undefined && 'withhold' in forced ? forced.withhold : []
}
