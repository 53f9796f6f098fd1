import { Type } from 'typebox'
import { describe, expect, it, vi } from 'vitest'
import { Agent, defaultStuckLoopRule, ProviderError, strictOutputRules, tool, type GateEvent } from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'

const Verdict = Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]) }, { additionalProperties: false })
const canned = { action: 'reject' } as const
const down = () => new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })

function agentFor(steps: readonly ScriptedStep[], fallback?: (error: unknown, raw: string | undefined) => unknown) {
  const provider = scripted(steps)
  const agent = Agent.create({ provider })
    .outputSchema(Verdict)
    .reliability({ postDecide: [defaultStuckLoopRule, ...strictOutputRules(3)] })
    .outputFallback({ canned, ...(fallback !== undefined ? { fallback } : {}) })
    .build()
  const events: GateEvent[] = []
  agent.events$.subscribe((e) => events.push(e))
  return { provider, agent, events }
}

describe('Agent outputFallback', () => {
  it('answers with the canned tier after a stuck loop', async () => {
    const { provider, agent, events } = agentFor(['{"action": "maybe"}', '{"action": "maybe"}'])
    const result = await agent.runDetailed('refund?')
    expect(provider.calls).toBe(2)
    expect(result).toMatchObject({ value: canned, text: '{"action":"reject"}', outputFallback: 'canned', fromFallback: true, provider: 'canned' })
    expect(events.filter((e) => e.type === 'output_canned_used')).toEqual([
      { type: 'output_canned_used', runId: expect.any(String), kind: 'schema-stuck-loop', reason: expect.any(String) },
    ])
    expect(events.some((e) => e.type === 'output_fallback_triggered')).toBe(false)
    expect(agent.history.at(-1)).toEqual({ role: 'assistant', content: '{"action":"reject"}' })
  })

  it('uses tier 2 with the error and the raw output, re-validated', async () => {
    const fallback = vi.fn((_error: unknown, raw: string | undefined) => (raw?.includes('maybe') === true ? '{"action": "refund"}' : 'nope'))
    const { agent, events } = agentFor(['{"action": "maybe"}', '{"action": "maybe"}'], fallback)
    const result = await agent.runDetailed('refund?')
    expect(fallback).toHaveBeenCalledWith(expect.objectContaining({ kind: 'schema-stuck-loop' }), '{"action": "maybe"}')
    expect(result).toMatchObject({ value: { action: 'refund' }, outputFallback: 'fallback', provider: 'output-fallback' })
    expect(events.map((e) => e.type)).toContain('output_fallback_triggered')
    expect(events.map((e) => e.type)).not.toContain('output_canned_used')
  })

  it('falls through to the canned tier when tier 2 answers something invalid or throws', async () => {
    const invalid = agentFor(['x', 'y', 'z'], () => ({ action: 'maybe' }))
    expect(await invalid.agent.runTyped('refund?')).toEqual(canned)
    expect(invalid.events.map((e) => e.type)).toEqual(expect.arrayContaining(['output_fallback_triggered', 'output_canned_used']))

    const throwing = agentFor(['x', 'y', 'z'], () => {
      throw new Error('fallback model down')
    })
    expect(await throwing.agent.runTyped('refund?')).toEqual(canned)
  })

  it('handles retries exhausted on a parse failure', async () => {
    const { agent } = agentFor(['not json', 'still not', 'nope'])
    expect(await agent.runTyped('refund?')).toEqual(canned)
  })

  it('does not swallow other fail-fast kinds unless configured', async () => {
    const down = () => new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })
    const plain = agentFor([down()])
    await expect(plain.agent.run('refund?')).rejects.toMatchObject({ kind: 'http-5xx' })

    const agent = Agent.create({ provider: scripted([down()]) })
      .outputSchema(Verdict)
      .outputFallback({ canned, alsoOn: ['http-5xx'] })
      .build()
    expect(await agent.runTyped('refund?')).toEqual(canned)
  })

  it('does not swallow a halted cost budget unless configured', async () => {
    const build = (alsoOn: readonly string[]) =>
      Agent.create({ provider: scripted([{ toolCalls: [{ id: 'c', name: 'noop', args: {} }] }, '{"action": "refund"}']) })
        .outputSchema(Verdict)
        .tool(tool({ name: 'noop', description: '', input: Type.Object({}), execute: () => 'ok' }))
        .reliability({ priceUsage: () => 1 })
        .costBudget({ usd: 0.5, onExceed: 'halt' })
        .outputFallback({ canned, alsoOn })
        .build()
    // The tool turn spends $1, so the budget halts the run before the turn that would answer.
    await expect(build([]).run('refund?')).rejects.toMatchObject({ kind: 'budget-exceeded' })
    await expect(build(['budget-exceeded']).runTyped('refund?')).resolves.toEqual(canned)
  })

  it('refuses alsoOn holding anything but kinds (a number, an empty string) when the agent is built, never a set that matches nothing', () => {
    const builder = Agent.create({ provider: scripted([]) }).outputSchema(Verdict)
    for (const alsoOn of [[5], [''], 'circuit-open']) {
      expect(() => builder.outputFallback({ canned, alsoOn: alsoOn as never }).build()).toThrow(
        /Agent\.outputFallback: alsoOn must be an array of fail-fast kinds \(non-empty strings\)/,
      )
    }
    expect(() => builder.outputFallback({ canned, alsoOn: ['circuit-open', 'my-rule-kind'] }).build()).not.toThrow()
  })

  it('refuses a canned answer JSON cannot write, or whose fields cannot be read, with a TypeError naming outputFallback', () => {
    const cycle: Record<string, unknown> = { action: 'reject' }
    cycle['self'] = cycle
    const unreadable = [
      { action: 10n },
      cycle,
      {
        action: 'reject',
        toJSON: () => {
          throw new Error('no JSON')
        },
      },
      {
        get action(): string {
          throw new Error('getter')
        },
      },
    ]
    for (const answer of unreadable) {
      const builder = Agent.create({ provider: scripted([]) }).outputSchema(Type.Object({ action: Type.Any() }))
      expect(() => builder.outputFallback({ canned: answer as never }).build()).toThrow(
        /^Agent\.outputFallback: the canned answer cannot be read or written as JSON: /,
      )
    }
  })

  it('validates the canned answer when the agent is built', () => {
    const builder = Agent.create({ provider: scripted([]) }).outputSchema(Verdict)
    expect(() => builder.outputFallback({ canned: { action: 'maybe' } as never }).build()).toThrow(/canned answer does not match the output schema/)
    expect(() => builder.outputFallback({}).build()).toThrow(/fallback function, a canned answer, or both/)
    expect(() =>
      Agent.create({ provider: scripted([]) })
        .outputFallback({ canned: 'Sorry.' })
        .build(),
    ).not.toThrow()
  })

  it('does not swallow an open circuit breaker unless configured', async () => {
    const build = (alsoOn: readonly string[]) => {
      const provider = scripted([down(), 'unreached'])
      const agent = Agent.create({ provider })
        .outputSchema(Verdict)
        .reliability({ breaker: { failureThreshold: 1, cooldownMs: 60_000 } })
        .outputFallback({ canned: { action: 'reject' }, alsoOn })
        .build()
      return { agent, provider }
    }
    const plain = build([])
    await expect(plain.agent.run('one')).rejects.toMatchObject({ kind: 'http-5xx' })
    await expect(plain.agent.run('two')).rejects.toMatchObject({ kind: 'circuit-open' })
    expect(plain.provider.calls).toBe(1)

    const configured = build(['circuit-open'])
    await expect(configured.agent.run('one')).rejects.toMatchObject({ kind: 'http-5xx' })
    expect(await configured.agent.runTyped('two')).toEqual({ action: 'reject' })
    expect(configured.provider.calls).toBe(1)
  })
})
