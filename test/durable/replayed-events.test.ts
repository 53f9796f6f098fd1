import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, createGate, type GateEvent, strictOutputRules, tool } from '../../src/index.ts'
import { instrument } from '../../src/otel/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { recordTrace } from '../../src/trace/index.ts'
import { otelHarness } from '../observability/otel-support.ts'
import { call, turn } from '../agent/tool-fixtures.ts'
import { crashingEngine } from './support/crashing-engine.ts'

const Amount = Type.Object({ amount: Type.Integer() }, { additionalProperties: false })
const ask = { messages: [{ role: 'user' as const, content: 'how much?' }] }
const steps: ScriptedStep[] = [
  { content: 'not json', usage: { inputTokens: 10, outputTokens: 2 } },
  { content: '{"amount": "five"}', usage: { inputTokens: 20, outputTokens: 4 } },
  { content: '{"amount": 5}', usage: { inputTokens: 30, outputTokens: 6 } },
]
const gateOver = (script: readonly ScriptedStep[]) =>
  createGate({ providers: scripted(script, { name: 'openai' }), model: 'gpt-test', outputSchema: Amount, postDecide: strictOutputRules(5) })

/** The journal of a run that died with its third attempt in flight (attempts 1 and 2 journaled). */
async function crashedJournal(): Promise<string[]> {
  const journal: string[] = []
  await gateOver(steps)
    .run(ask, { durable: crashingEngine('r', journal, 2).port })
    .catch(() => undefined)
  return journal
}

describe('Replayed attempts in telemetry', () => {
  it('gives the resumed run no span and no metric for the attempts its journal answered', async () => {
    const journal = await crashedJournal()
    const h = otelHarness()
    const gate = gateOver(steps.slice(2))
    const stop = instrument(gate, h.providers)
    await gate.run(ask, { durable: crashingEngine('r', journal).port })
    stop()
    const chats = h.spans().filter((s) => s.name.startsWith('chat'))
    expect(chats.map((s) => s.attributes['reliability_gate.attempt'])).toEqual([3])
    const tokens = await h.points('gen_ai.client.token.usage')
    const input = tokens.find((p) => p.attributes['gen_ai.token.type'] === 'input')?.value as { sum: number; count: number }
    expect([input.sum, input.count]).toEqual([30, 1])
    expect(await h.points('reliability_gate.validation_failures')).toEqual([])
    expect(await h.points('reliability_gate.retries')).toEqual([])
    // The run itself ended here (its last attempt ran in this process): counted once, with its three attempts.
    const attempts = await h.points('reliability_gate.attempts')
    expect((attempts[0]?.value as { sum: number } | undefined)?.sum).toBe(3)
    await h.shutdown()
  })

  it('records the replayed attempts in a trace, marked replayed: true', async () => {
    const journal = await crashedJournal()
    const path = join(mkdtempSync(join(tmpdir(), 'rg-replayed-')), 'trace.jsonl')
    const gate = gateOver(steps.slice(2))
    const recorder = recordTrace(gate, { path })
    await gate.run(ask, { durable: crashingEngine('r', journal).port })
    await recorder.stop()
    const records = readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; attempt?: number; replayed?: boolean })
    const ends = records.filter((r) => r.type === 'attempt_end').map((r) => [r.attempt, r.replayed ?? false])
    expect(ends).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ])
  })

  it('marks the model attempts of an agent run answered from the journal, by turn', async () => {
    const lookup = tool({
      name: 'lookup',
      description: 'Look an order up',
      input: Type.Object({ order: Type.String() }),
      execute: () => ({ status: 'shipped' }),
    })
    const script = [turn(call('lookup', { order: 'A' }, 'c1')), 'Shipped.']
    const journal: string[] = []
    // The process dies as it journals the second model call: the first turn and its tool call are journaled.
    const first = Agent.create({ provider: scripted(script) })
      .tool(lookup)
      .build()
    await first.run('where is A?', { durable: crashingEngine('agent-run', journal, 2).port }).catch(() => undefined)
    const provider = scripted(script.slice(1))
    const agent = Agent.create({ provider }).tool(lookup).build()
    const ends: GateEvent[] = []
    agent.on('attempt_end', (e) => ends.push({ type: 'attempt_end', ...e }))
    expect(await agent.run('where is A?', { durable: crashingEngine('agent-run', journal).port })).toBe('Shipped.')
    expect(provider.calls).toBe(1)
    expect(ends.map((e) => [e.turn, e.replayed ?? false])).toEqual([
      [1, true],
      [2, false],
    ])
  })

  it('marks the end of a tool call the journal answered replayed: true, and gives it no span', async () => {
    let executions = 0
    const lookup = tool({
      name: 'lookup',
      description: 'Look an order up',
      input: Type.Object({ order: Type.String() }),
      execute: () => {
        executions++
        return { status: 'shipped' }
      },
    })
    const script = [turn(call('lookup', { order: 'A' }, 'c1')), 'Shipped.']
    const journal: string[] = []
    const first = Agent.create({ provider: scripted(script) })
      .tool(lookup)
      .build()
    await first.run('where is A?', { durable: crashingEngine('tool-run', journal, 2).port }).catch(() => undefined)
    expect(executions).toBe(1)
    const agent = Agent.create({ provider: scripted(script.slice(1)) })
      .tool(lookup)
      .build()
    const events: GateEvent[] = []
    agent.on('tool_end', (e) => events.push({ type: 'tool_end', ...e }))
    agent.on('tool_retry_outcome', (e) => events.push({ type: 'tool_retry_outcome', ...e }))
    const h = otelHarness()
    const stop = instrument(agent, h.providers)
    expect(await agent.run('where is A?', { durable: crashingEngine('tool-run', journal).port })).toBe('Shipped.')
    stop()
    expect(executions).toBe(1)
    expect(events.map((e) => [e.type, e.replayed ?? false])).toEqual([
      ['tool_retry_outcome', true],
      ['tool_end', true],
    ])
    expect(h.spans().filter((s) => s.name.startsWith('execute_tool'))).toEqual([])
    await h.shutdown()
  })
})
