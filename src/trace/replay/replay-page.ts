import { basename } from 'node:path'
import type { TraceRecord } from '../trace-record.ts'
import { readTrace } from '../viewer/parse-trace.ts'
import { traceView } from '../viewer/trace-page.ts'
import type { ReplayWithRecords } from './replay-trace.ts'

/** The suffix of a replayed call's run in the viewer, beside its original. */
export const REPLAY_SUFFIX = ' ⟲ replay'

/**
 * The viewer's page of a trace with its replay beside it: after each original run, the replay of
 * each of its calls whose decisions changed or that needs a model answer, as a run of its own named
 * `<call id> ⟲ replay` (its timeline cut where the replay stopped for a model answer). The page is
 * the viewer's own, so what the trace holds is escaped as the viewer escapes it.
 */
export function replayPage(traceText: string, file: string, replay: ReplayWithRecords): string {
  const changed = new Map(replay.report.calls.filter((c) => c.status !== 'same').map((c) => [c.id, c]))
  const after = new Map<string, TraceRecord[]>()
  for (const { call, records } of replay.replayed) {
    if (!changed.has(call.id)) continue
    const ts = typeof call.records[0]?.ts === 'number' ? call.records[0].ts : 0
    const runId = `${call.id}${REPLAY_SUFFIX}`
    const lines = records.map((r) => ({ ...r, ts, runId }) as TraceRecord)
    const needs = changed.get(call.id)?.needsModelAnswer
    if (needs !== undefined) {
      // A line of the replay's own (no gate event): the viewer draws it as a note.
      lines.push({ ts, type: 'needs_model_answer', runId, attempt: needs.attempt, provider: needs.provider, reason: needs.reason } as unknown as TraceRecord)
    }
    const list = after.get(call.runId) ?? []
    list.push(...lines)
    after.set(call.runId, list)
  }
  // Each replay goes right after the last line of its original run: the line of the run's last record, by its
  // `runId` (a line of another run may name it in its text), found in one pass over the trace.
  const lastLine = new Map<string, number>()
  const trace = readTrace(traceText)
  trace.records.forEach((r, i) => {
    if (after.has(r.runId)) lastLine.set(r.runId, (trace.lines[i] as number) - 1)
  })
  const runsAfter = new Map<number, string[]>()
  for (const [runId, at] of lastLine) runsAfter.set(at, [...(runsAfter.get(at) ?? []), runId])
  const out: string[] = []
  traceText.split('\n').forEach((line, i) => {
    out.push(line)
    for (const runId of runsAfter.get(i) ?? []) for (const r of after.get(runId) ?? []) out.push(JSON.stringify(r))
  })
  return traceView(out.join('\n'), `${basename(file)} — replayed`).html
}
