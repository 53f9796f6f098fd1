import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { failoverRule, ProviderError, strictOutputRules } from '../../src/index.ts'
import { formatReplay, replayTrace, type TraceRecord } from '../../src/trace/index.ts'
import { recordCalls, type TestConfig } from './support/record-calls.ts'

const Loose = Type.Object({ n: Type.Integer() })
const Strict = Type.Object({ n: Type.Integer() }, { additionalProperties: false })
const PRICING = { m1: { input: 1, output: 2 } }
const BASE: TestConfig = { providers: ['p', 'q'], outputSchema: Loose, postDecide: [...strictOutputRules(3), failoverRule()], pricing: PRICING }
const http5xx = () => new ProviderError('upstream 503', { kind: 'http-5xx', status: 503 })

const SCRIPTS = [
  { p: ['{"n": 1}'] },
  { p: ['nope', '{"n": "1"}', '{"n": 2}'] },
  { p: ['{"n": 1, "extra": true}'] },
  { p: [http5xx()], q: ['{"n": 3}'] },
  { p: ['{"n": "x"}', '{"n": "x"}'] },
]

describe('replayTrace', () => {
  it('reproduces every decision, event and cost of a trace under the configuration that recorded it', async () => {
    const { records } = await recordCalls(BASE, SCRIPTS)
    const report = await replayTrace(records, { config: BASE })
    expect(report.calls).toHaveLength(SCRIPTS.length)
    expect(report.calls.map((c) => c.status)).toEqual(SCRIPTS.map(() => 'same'))
    expect(report.eventsIdentical).toBe(SCRIPTS.length)
    expect(report.after).toEqual(report.before)
    expect(report.before.costUsd).toBeGreaterThan(0)
    expect(report.before.succeeded).toBe(4)
  })

  it('prices a replay without pricing of its own at what each recorded attempt cost', async () => {
    const { records } = await recordCalls(BASE, SCRIPTS)
    const { pricing: _, ...unpriced } = BASE
    const report = await replayTrace(records, { config: unpriced })
    expect(report.calls.map((c) => c.status)).toEqual(SCRIPTS.map(() => 'same'))
    expect(report.after.costUsd).toBe(report.before.costUsd)
    expect(report.after.costUsd).toBeGreaterThan(0)
  })

  it('marks where a tightened schema asks for an answer the trace never recorded, and stops that call there', async () => {
    const { records } = await recordCalls(BASE, SCRIPTS)
    const report = await replayTrace(records, { config: { ...BASE, outputSchema: Strict } })
    const extra = report.calls[2]
    expect(extra?.status).toBe('needs-model-answer')
    expect(extra?.needsModelAnswer).toMatchObject({ attempt: 2, provider: 'p' })
    expect(extra?.divergence).toMatchObject({ attempt: 1, before: { action: 'accept', errorKind: 'ok' }, after: { action: 'retry', errorKind: 'schema-fail' } })
    expect(extra?.after.outcome).toBeUndefined()
    expect(report.needsModelAnswer).toBe(1)
    expect(report.calls.filter((c) => c !== extra).map((c) => c.status)).toEqual(['same', 'same', 'same', 'same'])
    // The totals after cover the decided calls only; beside them, the recording over the same calls.
    expect(report.after.calls).toBe(4)
    expect(report.beforeDecided.calls).toBe(4)
    expect(report.after).toEqual(report.beforeDecided)
  })

  it('reports a smaller attempt budget as changed decisions, with the first diverging attempt and the costs after', async () => {
    const { records } = await recordCalls(BASE, SCRIPTS)
    const report = await replayTrace(records, { config: { ...BASE, postDecide: [...strictOutputRules(2), failoverRule()] } })
    const retried = report.calls[1]
    expect(retried?.status).toBe('changed')
    expect(retried?.divergence).toMatchObject({ attempt: 2, before: { action: 'retry' }, after: { action: 'fail-fast', kind: 'schema-retry-exhausted' } })
    expect(retried?.after.outcome).toMatchObject({ outcome: 'fail-fast', attempts: 2 })
    expect(report.after.succeeded).toBe(report.before.succeeded - 1)
    expect(report.after.attempts).toBe(report.before.attempts - 1)
    expect(report.after.costUsd).toBeLessThan(report.before.costUsd)
    expect(report.needsModelAnswer).toBe(0)
  })

  it('never invents the answer of a provider the trace never called', async () => {
    const { records } = await recordCalls({ ...BASE, providers: ['p'] }, [{ p: [http5xx()] }])
    const report = await replayTrace(records, { config: { ...BASE, providers: ['p', 'backup'] } })
    expect(report.calls[0]?.status).toBe('needs-model-answer')
    expect(report.calls[0]?.needsModelAnswer).toMatchObject({ attempt: 2, provider: 'backup' })
    expect(report.calls[0]?.needsModelAnswer?.reason).toContain('holds no answer')
    expect(report.calls[0]?.divergence).toMatchObject({ attempt: 1, before: { action: 'fail-fast' }, after: { action: 'fail-over' } })
  })

  it('chooses the configuration per call when given a function of the recorded call', async () => {
    const { records } = await recordCalls(BASE, SCRIPTS)
    const seen: string[] = []
    const report = await replayTrace(records, {
      config: (call) => {
        seen.push(call.id)
        return call.runId === 'call-2' ? { ...BASE, outputSchema: Strict } : BASE
      },
    })
    expect(seen).toEqual(SCRIPTS.map((_, i) => `call-${i}`))
    expect(report.calls.map((c) => c.status)).toEqual(['same', 'same', 'needs-model-answer', 'same', 'same'])
  })

  it('lists a call cut short or whose answer was redacted as unreplayable, with why, and replays the rest', async () => {
    const { records } = await recordCalls(BASE, SCRIPTS.slice(0, 3))
    const redacted = records.map((r) =>
      r.runId === 'call-0' && r.type === 'attempt_end' ? ({ ...r, response: { ...(r.response as object), content: undefined } } as TraceRecord) : r,
    )
    const cut = redacted.filter((r) => !(r.runId === 'call-1' && r.type === 'run_end'))
    const report = await replayTrace(cut, { config: BASE })
    expect(report.unreplayable).toEqual([
      { id: 'call-1', runId: 'call-1', reason: 'the call never ended in the trace (no run_end)' },
      { id: 'call-0', runId: 'call-0', reason: 'attempt 1: the response has no text content (redacted or cut?)' },
    ])
    expect(report.calls.map((c) => c.id)).toEqual(['call-2'])
  })

  it('reads hostile records as unreplayable, never as answers', async () => {
    const hostile = [
      { ts: 1, type: 'run_start', runId: 'h', provider: 'p' },
      { ts: 2, type: 'attempt_start', runId: 'h', attempt: '1', provider: 'p', providerIdx: 0 },
      { ts: 3, type: 'run_end', runId: 'h', outcome: 'ok' },
      { ts: 1, type: 'run_start', runId: 'k', provider: 'p' },
      { ts: 2, type: 'attempt_start', runId: 'k', attempt: 1, provider: 'p', providerIdx: 0, request: { messages: 1, tail: [] } },
      {
        ts: 3,
        type: 'attempt_end',
        runId: 'k',
        attempt: 1,
        errorKind: 'ok',
        usage: { inputTokens: -1, outputTokens: 2 },
        response: { content: '{}', stopReason: 'end' },
      },
      { ts: 4, type: 'run_end', runId: 'k', outcome: 'ok' },
    ] as unknown as TraceRecord[]
    const report = await replayTrace(hostile, { config: BASE })
    expect(report.calls).toEqual([])
    expect(report.unreplayable.map((u) => u.reason)).toEqual([
      'attempt_start without a usable attempt, provider or providerIdx',
      'attempt 1: no usable usage (inputTokens, outputTokens)',
    ])
  })

  it('reads a recorded request of more messages than a replay rebuilds (an edited count) as unreplayable, never allocating a placeholder for each', async () => {
    const { records } = await recordCalls(BASE, SCRIPTS.slice(0, 2))
    const edited = records.map((r) =>
      r.runId === 'call-0' && r.type === 'attempt_start' ? ({ ...r, request: { ...(r.request as object), messages: 2 ** 32 } } as TraceRecord) : r,
    )
    const report = await replayTrace(edited, { config: BASE })
    expect(report.unreplayable).toEqual([
      { id: 'call-0', runId: 'call-0', reason: 'attempt 1: its request held 4294967296 messages, more than a replay rebuilds (100000)' },
    ])
    expect(report.calls.map((c) => [c.id, c.status])).toEqual([['call-1', 'same']])
  })

  it('refuses an unknown option with the one it is closest to', async () => {
    await expect(replayTrace([], { config: BASE, confg: {} } as never)).rejects.toThrow(/unknown option "confg" \(did you mean "config"\?\)/)
    await expect(replayTrace([], {} as never)).rejects.toThrow(/config is required/)
    await expect(replayTrace('trace' as never, { config: BASE })).rejects.toThrow(TypeError)
  })

  it('rejects with the gate’s own error, naming the call, when the configuration is refused', async () => {
    const { records } = await recordCalls(BASE, SCRIPTS.slice(0, 1))
    await expect(replayTrace(records, { config: { ...BASE, maxAtempts: 2 } as never })).rejects.toThrow(/call "call-0".*did you mean "maxAttempts"/)
    await expect(replayTrace(records, { config: { ...BASE, providers: [{ name: 'p' }] } as never })).rejects.toThrow(
      /providers must name the recorded providers/,
    )
  })

  it('stops at an aborted signal with its reason, replaying nothing more', async () => {
    const { records } = await recordCalls(BASE, SCRIPTS)
    const controller = new AbortController()
    const reason = new Error('enough')
    let asked = 0
    const replay = replayTrace(records, {
      config: () => {
        asked++
        if (asked === 2) controller.abort(reason)
        return BASE
      },
      signal: controller.signal,
    })
    await expect(replay).rejects.toBe(reason)
    expect(asked).toBe(2)
  })

  it('rejects naming the call when the configuration function throws', async () => {
    const { records } = await recordCalls(BASE, SCRIPTS.slice(0, 1))
    const replay = replayTrace(records, {
      config: () => {
        throw new Error('no config for this one')
      },
    })
    await expect(replay).rejects.toThrow('replayTrace: config(call "call-0") threw: no config for this one')
  })

  it('prints a run id or kind holding line breaks and terminal escapes on one escaped line of the table', async () => {
    const { records } = await recordCalls(BASE, SCRIPTS.slice(2, 3))
    const hostileId = 'run\n\u001b[31mFAKE LINE'
    const renamed = records.map((r) => ({ ...r, runId: hostileId }) as TraceRecord)
    const report = await replayTrace(renamed, { config: { ...BASE, outputSchema: Strict } })
    const table = formatReplay(report)
    expect(table).not.toContain('\u001b')
    expect(table).not.toContain('\nFAKE LINE')
    expect(table).toContain('run\\u000a\\u001b[31mFAKE LINE')
  })

  it('reads an answer holding __proto__ as plain data, validated like any other', async () => {
    const { records } = await recordCalls(BASE, [{ p: ['{"n": 1, "__proto__": {"polluted": true}}'] }])
    const report = await replayTrace(records, { config: BASE })
    expect(report.calls[0]?.status).toBe('same')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})
