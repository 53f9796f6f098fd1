import { describe, expect, it } from 'vitest'
import { type DurablePort, isDurableRunError, memoryDurablePort } from '../../src/durable.ts'
import { Agent, isReliabilityFailFastError } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

const names = (journal: readonly string[]): string[] => journal.map((entry) => (JSON.parse(entry) as { name: string }).name)

describe('A durable agent run under a deadline', () => {
  it('journals its start first, and its gate calls take the agent run’s deadline (no start of their own)', async () => {
    const journal: string[] = []
    const agent = Agent.create({ provider: scripted(['Hi.']) }).build()
    const before = Date.now()
    await agent.run('hi', { durable: memoryDurablePort({ runId: 'r', journal }), runTimeoutMs: 30_000 })
    expect(names(journal)).toEqual(['start', 'attempt:1:1'])
    expect((JSON.parse(journal[0] as string) as { value: number }).value).toBeGreaterThanOrEqual(before)
  })

  it('fails a run resumed past its original deadline as run-timeout, without calling the model', async () => {
    const journal = [JSON.stringify({ v: 1, seq: 0, name: 'start', ok: true, value: Date.now() - 60_000 })]
    const provider = scripted(['Hi.'])
    const agent = Agent.create({ provider }).build()
    const error = await agent.run('hi', { durable: memoryDurablePort({ runId: 'r', journal }), runTimeoutMs: 30_000 }).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) ? error.kind : error).toBe('run-timeout')
    expect(provider.calls).toBe(0)
  })

  it('replays a finished run whole on a session, without calling the model again', async () => {
    const journal: string[] = []
    const first = Agent.create({ provider: scripted(['Hi.']) }).build()
    expect(await first.session().run('hi', { durable: memoryDurablePort({ runId: 'r', journal }), runTimeoutMs: 30_000 })).toBe('Hi.')
    const provider = scripted([])
    const again = Agent.create({ provider }).build()
    expect(await again.session().run('hi', { durable: memoryDurablePort({ runId: 'r', journal }), runTimeoutMs: 30_000 })).toBe('Hi.')
    expect(provider.calls).toBe(0)
  })

  it('fails fast with kind durable-journal, calling no model, when its journaled start is corrupt, diverged or your port throws on it', async () => {
    const entry = (name: string, value: unknown) => JSON.stringify({ v: 1, seq: 0, name, ok: true, value })
    const ports: [string, DurablePort][] = [
      ['corrupt-entry', memoryDurablePort({ runId: 'r', journal: [entry('start', 'yesterday')] })],
      ['corrupt-entry', memoryDurablePort({ runId: 'r', journal: ['{"v":1,"seq":0,'] })],
      ['divergence', memoryDurablePort({ runId: 'r', journal: [entry('attempt:1:1', Date.now())] })],
      ['engine-failed', { runId: 'r', step: () => Promise.reject(new Error('engine down')), sleep: async () => {} }],
    ]
    for (const [refusal, durable] of ports) {
      const provider = scripted(['Hi.'])
      const ends: string[] = []
      const agent = Agent.create({ provider }).build()
      agent.on('agent_run_end', (e) => ends.push(e.kind))
      const error = await agent.run('hi', { durable, runTimeoutMs: 30_000 }).catch((e: unknown) => e)
      expect(isReliabilityFailFastError(error) ? error.kind : error).toBe('durable-journal')
      const cause = (error as { cause?: unknown }).cause
      expect(isDurableRunError(cause) ? cause.kind : cause).toBe(refusal)
      expect(provider.calls).toBe(0)
      expect(ends).toEqual(['durable-journal'])
    }
  })

  it('refuses a runId that is not the port’s before it journals anything', async () => {
    const journal: string[] = []
    const agent = Agent.create({ provider: scripted(['Hi.']) }).build()
    await expect(agent.run('hi', { durable: memoryDurablePort({ runId: 'a', journal }), runId: 'b', runTimeoutMs: 30_000 })).rejects.toThrow(TypeError)
    expect(journal).toEqual([])
  })
})
