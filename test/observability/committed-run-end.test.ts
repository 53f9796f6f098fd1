import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SpanStatusCode } from '@opentelemetry/api'
import { describe, expect, it } from 'vitest'
import { Agent, type GateEvent } from '../../src/index.ts'
import { instrument } from '../../src/otel/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { memorySessionStore } from '../../src/sessions/memory-session-store.ts'
import type { SessionStore } from '../../src/sessions/session-store.ts'
import { recordTrace } from '../../src/trace/index.ts'
import { otelHarness } from './otel-support.ts'

/** A store that loads fine and fails every append. */
function failingStore(): SessionStore {
  const inner = memorySessionStore()
  return { load: (id) => inner.load(id), delete: (id) => inner.delete(id), append: () => Promise.reject(new Error('disk full')) }
}

/** A store whose conversation always moved on (another writer won). */
function conflictingStore(): SessionStore {
  const inner = memorySessionStore()
  return { load: (id) => inner.load(id), delete: (id) => inner.delete(id), append: async () => ({ committed: false, version: 7 }) }
}

const CASES = [
  { name: 'a store whose append rejects', store: failingStore, kind: 'session-store-failed', options: undefined },
  { name: 'a version conflict', store: conflictingStore, kind: 'session-conflict', options: { onConflict: 'fail' as const } },
] as const

async function observedRun(store: SessionStore, options: { onConflict: 'fail' } | undefined, how: 'run' | 'stream') {
  const agent = Agent.create({ provider: scripted(['Hello there.']), name: 'support', sessions: store }).build()
  const events: GateEvent[] = []
  agent.events$.subscribe((e) => events.push(e))
  const h = otelHarness()
  const stopOtel = instrument(agent, h.providers)
  const path = join(mkdtempSync(join(tmpdir(), 'rg-commit-')), 'trace.jsonl')
  const recorder = recordTrace(agent, { path })
  const session = await agent.session('customer-1', options)
  const caught = await (how === 'run' ? session.run('hi') : session.stream('hi').result).then(
    () => undefined,
    (error: unknown) => error,
  )
  stopOtel()
  await recorder.stop()
  const trace = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; outcome?: string; kind?: string })
  return { caught, events, spans: h.spans(), trace }
}

describe('Session run end', () => {
  for (const c of CASES) {
    for (const how of ['run', 'stream'] as const) {
      it(`reports the commit's failure on agent_run_end, fail_fast, the agent span and the trace after ${c.name} (${how})`, async () => {
        const { caught, events, spans, trace } = await observedRun(c.store(), c.options, how)
        expect(caught).toMatchObject({ kind: c.kind })
        const ends = events.filter((e) => e.type === 'agent_run_end')
        expect(ends).toEqual([expect.objectContaining({ outcome: 'fail-fast', kind: c.kind, agent: 'support' })])
        expect(events.filter((e) => e.type === 'fail_fast')).toEqual([expect.objectContaining({ kind: c.kind })])
        // fail_fast comes before the end, as for any other failed run.
        expect(events.findIndex((e) => e.type === 'fail_fast')).toBeLessThan(events.findIndex((e) => e.type === 'agent_run_end'))
        const agentSpan = spans.find((s) => s.name.startsWith('invoke_agent'))
        expect(agentSpan?.status.code).toBe(SpanStatusCode.ERROR)
        expect(agentSpan?.attributes['reliability_gate.fail_fast.kind']).toBe(c.kind)
        expect(trace.filter((r) => r.type === 'agent_run_end')).toEqual([expect.objectContaining({ outcome: 'fail-fast', kind: c.kind })])
      })
    }
  }

  it('reports ok once the store committed the exchange', async () => {
    const { caught, events, spans } = await observedRun(memorySessionStore(), undefined, 'run')
    expect(caught).toBeUndefined()
    expect(events.filter((e) => e.type === 'agent_run_end')).toEqual([expect.objectContaining({ outcome: 'ok', kind: 'ok', turns: 1 })])
    expect(events.some((e) => e.type === 'fail_fast')).toBe(false)
    expect(spans.find((s) => s.name.startsWith('invoke_agent'))?.status.code).not.toBe(SpanStatusCode.ERROR)
  })

  it('emits agent_run_end after the store answered, never before', async () => {
    let release: (value: { committed: true; version: number; staleBy: number }) => void = () => {}
    const store: SessionStore = {
      load: async () => ({ messages: [], version: 0 }),
      delete: async () => {},
      append: () => new Promise((resolve) => (release = resolve)),
    }
    const agent = Agent.create({ provider: scripted(['Hi.']), sessions: store }).build()
    const ends: unknown[] = []
    agent.on('agent_run_end', (e) => ends.push(e))
    const session = await agent.session('c')
    const running = session.run('hi')
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(ends).toEqual([])
    release({ committed: true, version: 1, staleBy: 0 })
    await running
    expect(ends).toEqual([expect.objectContaining({ outcome: 'ok' })])
  })
})
