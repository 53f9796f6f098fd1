import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { strictOutputRules } from '../../src/index.ts'
import { formatReplay, replayTrace, type TraceRecord } from '../../src/trace/index.ts'
import { MAX_REPLAYED_MESSAGES } from '../../src/trace/replay/recorded-calls.ts'
import { replayPage } from '../../src/trace/replay/replay-page.ts'
import { replayWithRecords } from '../../src/trace/replay/replay-trace.ts'
import { recordCalls, type TestConfig } from './support/record-calls.ts'

const CONFIG: TestConfig = {
  providers: ['p'],
  outputSchema: Type.Object({ n: Type.Integer() }),
  postDecide: strictOutputRules(3),
  pricing: { m1: { input: 1, output: 2 } },
}
const SCRIPTS = [{ p: ['nope', '{"n": 1}'] }, { p: ['{"n": 2}'] }]

type Edit = (record: Record<string, unknown>) => void

/** The recorded trace of {@link SCRIPTS}, the records of call `call-0` edited (a trace file someone changed). */
async function edited(edit: Edit): Promise<TraceRecord[]> {
  const { records } = await recordCalls(CONFIG, SCRIPTS)
  return records.map((r) => {
    const copy = structuredClone(r) as Record<string, unknown>
    if (copy.runId === 'call-0') edit(copy)
    return copy as TraceRecord
  })
}

const firstAttempt =
  (edit: Edit): Edit =>
  (r) => {
    if (r.type === 'attempt_start' && r.attempt === 1) edit(r)
  }

describe('replayTrace on edited records', () => {
  it('lists a call whose attempt skips a provider index as unreplayable, replaying the rest', async () => {
    for (const idx of [1, 1e8, 2 ** 32]) {
      // Every attempt of the call on that index: read as it was, the gate would be built with a hole for a provider.
      const report = await replayTrace(await edited((r) => r.type === 'attempt_start' && (r.providerIdx = idx)), { config: CONFIG })
      expect(report.unreplayable).toEqual([{ id: 'call-0', runId: 'call-0', reason: `attempt 1: providerIdx ${idx} skips providers (the call had used 0)` }])
      expect(report.calls.map((c) => [c.id, c.status])).toEqual([['call-1', 'same']])
    }
    const second = await edited((r) => r.type === 'attempt_start' && r.attempt === 2 && (r.providerIdx = 2))
    expect((await replayTrace(second, { config: CONFIG })).unreplayable.map((u) => u.reason)).toEqual([
      'attempt 2: providerIdx 2 skips providers (the call had used 1)',
    ])
  })

  it('lists a call recorded with more messages than a replay rebuilds as unreplayable, without building them', async () => {
    const records = await edited(firstAttempt((r) => ((r.request as Record<string, unknown>).messages = MAX_REPLAYED_MESSAGES + 1)))
    const report = await replayTrace(records, { config: CONFIG })
    expect(report.unreplayable).toEqual([
      {
        id: 'call-0',
        runId: 'call-0',
        reason: `attempt 1: its request held ${MAX_REPLAYED_MESSAGES + 1} messages, more than a replay rebuilds (${MAX_REPLAYED_MESSAGES})`,
      },
    ])
    expect(report.calls.map((c) => [c.id, c.status])).toEqual([['call-1', 'same']])
  })

  it('rebuilds a request of as many messages as the most it allows', async () => {
    const records = await edited(firstAttempt((r) => ((r.request as Record<string, unknown>).messages = MAX_REPLAYED_MESSAGES)))
    const report = await replayTrace(records, { config: CONFIG })
    expect(report.unreplayable).toEqual([])
    expect(report.calls.map((c) => c.status)).toEqual(['same', 'same'])
  })

  it('lists a call whose run id or turn no gate run takes as unreplayable, replaying the rest', async () => {
    const cases: readonly [Edit, string][] = [
      [(r) => (r.runId = ''), 'its runId is empty (no gate run has one)'],
      [(r) => r.type === 'run_start' && (r.turn = 1e300), 'its turn is not a count (1e+300)'],
      [(r) => r.type === 'run_start' && (r.turn = 2 ** 53), 'its turn is not a count (9007199254740992)'],
      [(r) => r.type === 'run_start' && (r.turn = '1'), 'its turn is not a count (string)'],
    ]
    for (const [edit, reason] of cases) {
      const report = await replayTrace(await edited(edit), { config: CONFIG })
      expect(report.unreplayable.map((u) => u.reason)).toEqual([reason])
      expect(report.calls.map((c) => [c.id, c.status])).toEqual([['call-1', 'same']])
    }
  })

  it('reads token counts past 2^53 as no usable usage, never as an answer', async () => {
    const records = await edited((r) => r.type === 'attempt_end' && r.attempt === 2 && (r.usage = { inputTokens: 1e300, outputTokens: 2 ** 53 }))
    const report = await replayTrace(records, { config: CONFIG })
    expect(report.unreplayable).toEqual([{ id: 'call-0', runId: 'call-0', reason: 'attempt 2: no usable usage (inputTokens, outputTokens)' }])
  })

  it('reads a recorded decision named after an Object property as no action of its own', async () => {
    for (const decision of ['constructor', 'toString', '__proto__']) {
      const records = await edited((r) => r.type === 'decision' && r.attempt === 1 && (r.decision = decision))
      const report = await replayTrace(records, { config: CONFIG })
      const call = report.calls[0]
      expect(call?.divergence?.before).toMatchObject({ attempt: 1, action: 'fail-fast' })
      expect(call?.divergence?.after).toMatchObject({ attempt: 1, action: 'retry' })
      expect(formatReplay(report)).not.toContain('native code')
    }
  })

  it('prints the table of a replay of 600,000 changed calls', async () => {
    const records = await edited((r) => r.type === 'decision' && r.attempt === 1 && (r.decision = 'fail-fast'))
    const report = await replayTrace(records, { config: CONFIG })
    const changed = report.calls[0]
    expect(changed?.status).toBe('changed')
    const many = { ...report, calls: Array.from({ length: 600_000 }, () => changed as NonNullable<typeof changed>), changed: 600_000 }
    // Math.max(...) over this many rows overflows the stack (formatTrials draws its table the same way).
    expect(formatReplay(many)).toMatch(/^600000 calls replayed: 0 same, 600000 changed/)
  })
})

describe('replayPage', () => {
  it('puts a changed call’s replay right after its own run, not after a line of another run that names it', async () => {
    const records = (await edited((r) => r.type === 'decision' && r.attempt === 1 && (r.decision = 'fail-fast'))).map((r) =>
      r.runId === 'call-1' && r.type === 'run_start' ? ({ ...r, metadata: { about: 'call-0' } } as TraceRecord) : r,
    )
    const replay = await replayWithRecords(records, { config: CONFIG })
    expect(replay.report.calls.map((c) => c.status)).toEqual(['changed', 'same'])
    const html = replayPage(records.map((r) => JSON.stringify(r)).join('\n'), 'trace.jsonl', replay)
    const data = /<script type="application\/json" id="trace-data">(.*?)<\/script>/s.exec(html)?.[1] ?? '[]'
    const runs = JSON.parse(data) as { runId: string }[]
    expect(runs.map((r) => r.runId)).toEqual(['call-0', 'call-0 ⟲ replay', 'call-1'])
  })
})
