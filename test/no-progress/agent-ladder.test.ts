import { Type } from 'typebox'
import { describe, expect, it, vi } from 'vitest'
import { Agent, type GateEventMap, isReliabilityFailFastError, tool } from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'

const Query = Type.Object({ q: Type.String() })

function searchAgent(steps: readonly ScriptedStep[], noProgress?: Parameters<typeof Agent.create>[0]['noProgress']) {
  const provider = scripted(steps)
  const search = vi.fn(async (args: { q: string }) => ({ hits: [`${args.q}-1`] }))
  const lookup = vi.fn(async () => 'nothing new')
  const agent = Agent.create({ provider, model: 'm', maxIterations: 20, ...(noProgress !== undefined ? { noProgress } : {}) })
    .tools([
      tool({ name: 'search', description: 'Search', input: Query, execute: search }),
      tool({ name: 'lookup', description: 'Look up', input: Query, execute: lookup }),
    ])
    .build()
  const seen: GateEventMap['no_progress'][] = []
  agent.on('no_progress', (e) => seen.push(e))
  return { agent, provider, search, seen }
}

const repeat = (n: number, args: unknown = { q: 'refund' }): ScriptedStep[] =>
  Array.from({ length: n }, (_, i) => ({ content: '', toolCalls: [{ id: `c${i}`, name: 'search', args }], usage: { inputTokens: 100, outputTokens: 10 } }))

describe('Agent no-progress ladder', () => {
  it('nudges, forces a change, then stops with kind no-progress exactly at the threshold', async () => {
    const { agent, provider, seen } = searchAgent(repeat(10))
    const error = await agent.run('find the refund policy').catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('no-progress')
    // Three identical calls start the ladder: nudge after the 3rd, forced change after the 4th, stop after the 5th.
    expect(provider.calls).toBe(5)
    expect(seen.map((e) => [e.step, e.count])).toEqual([
      ['nudge', 3],
      ['forced-change', 4],
      ['stop', 5],
    ])
    expect(seen.every((e) => e.host === 'agent' && e.pattern === 'repeated-call' && e.tools[0] === 'search')).toBe(true)
    // Spent since progress stopped: the turns after the first call.
    expect(seen.at(-1)).toMatchObject({ turnsSinceProgress: 4, usage: { inputTokens: 400, outputTokens: 40 }, usageKnown: true })
    if (isReliabilityFailFastError(error)) expect(error.reason).toMatch(/repeated-call of "search" \(5, threshold 3\).*4 turns and 440 tokens/)
  })

  it('sends the nudge as an ephemeral message of the next turn only, and the forced turn without the looping tool', async () => {
    const { agent, provider } = searchAgent(repeat(10))
    await agent.run('find it').catch(() => undefined)
    const [, , , fourth, fifth] = provider.requests
    const last = fourth?.messages.at(-1)
    expect(last).toMatchObject({ role: 'user', ephemeral: true })
    expect(last?.content).toMatch(/^NO_PROGRESS: you have called 'search' with the same arguments 3 times/)
    expect(fourth?.tools?.map((t) => t.name)).toEqual(['search', 'lookup'])
    // The forced turn: the looping tool withheld, its notice sent, nothing of the nudge kept.
    expect(fifth?.tools?.map((t) => t.name)).toEqual(['lookup'])
    expect(fifth?.messages.filter((m) => m.ephemeral === true)).toHaveLength(1)
    expect(fifth?.messages.at(-1)?.content).toMatch(/4 times/)
  })

  it('answers a call of the withheld tool without running it, and keeps no nudge in the committed history', async () => {
    const steps = [...repeat(4), { content: '', toolCalls: [{ id: 'w', name: 'search', args: { q: 'other' } }] }, 'The policy allows refunds within 30 days.']
    const { agent, search } = searchAgent(steps)
    const session = agent.session()
    const result = await session.runDetailed('find it')
    expect(search).toHaveBeenCalledTimes(4)
    const withheld = result.functionsCalled.at(-1)
    expect(withheld).toMatchObject({ name: 'search', status: 'withheld', intercepted: true })
    expect(withheld?.error).toMatch(/^WITHHELD: 'search' is not available for this turn/)
    const history = session.history
    expect(history.some((m) => m.ephemeral === true || m.content.startsWith('NO_PROGRESS'))).toBe(false)
    expect(history.at(-1)?.content).toBe('The policy allows refunds within 30 days.')
  })

  it('lets a run that changes course after the nudge finish', async () => {
    const steps = [...repeat(3), { content: '', toolCalls: [{ id: 'x', name: 'lookup', args: { q: 'policy' } }] }, 'Done.']
    const { agent, seen } = searchAgent(steps)
    expect(await agent.run('find it')).toBe('Done.')
    expect(seen.map((e) => e.step)).toEqual(['nudge'])
  })

  it('stops the same error class repeated, whatever the arguments', async () => {
    const provider = scripted(Array.from({ length: 12 }, (_, i) => ({ content: '', toolCalls: [{ id: `p${i}`, name: 'pay', args: { amount: 100 + i } }] })))
    const pay = tool({
      name: 'pay',
      description: 'Pay',
      input: Type.Object({ amount: Type.Number() }),
      execute: (a: { amount: number }) => {
        throw new Error(`payment amount does not add up, total is 1203 but paid ${a.amount}`)
      },
    })
    const agent = Agent.create({ provider, maxIterations: 20 }).tool(pay).build()
    const error = await agent.run('pay').catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('no-progress')
    expect(provider.calls).toBe(7)
  })

  it('is off with noProgress: false (the run goes on to maxIterations)', async () => {
    const { agent, provider, seen } = searchAgent(repeat(20), false)
    const error = await agent.run('find it').catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('max-iterations')
    expect(provider.calls).toBe(20)
    expect(seen).toEqual([])
  })

  it('uses tuned thresholds and the no-tools forced change', async () => {
    const { agent, provider } = searchAgent(repeat(10), { repeats: 4, forcedChange: 'no-tools' })
    await agent.run('find it').catch(() => undefined)
    expect(provider.calls).toBe(6)
    expect(provider.requests[5]?.toolChoice).toBe('none')
    expect(provider.requests[5]?.tools?.length).toBe(2)
  })

  it('refuses a misspelt option at Agent.create', () => {
    expect(() => searchAgent([], { repeat: 4 } as never)).toThrow(/noProgress: unknown option "repeat".*repeats/s)
  })

  it('stops two tools alternating, withholding both on the forced turn', async () => {
    const steps: ScriptedStep[] = Array.from({ length: 14 }, (_, i) => ({
      content: '',
      toolCalls: [{ id: `a${i}`, name: i % 2 === 0 ? 'search' : 'lookup', args: { q: 'same' } }],
    }))
    const { agent, provider, seen } = searchAgent(steps)
    const error = await agent.run('find it').catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('no-progress')
    expect(seen.map((e) => [e.step, e.pattern, e.count])).toEqual([
      ['nudge', 'ping-pong', 8],
      ['forced-change', 'ping-pong', 9],
      ['stop', 'ping-pong', 10],
    ])
    // Both looping tools withheld: nothing left to offer, so the forced turn is sent with toolChoice 'none'.
    expect(provider.requests[9]?.toolChoice).toBe('none')
  })

  it('sends a text loop its forced turn with toolChoice none, and never counts an exempt tool', async () => {
    const steps: ScriptedStep[] = Array.from({ length: 10 }, (_, i) => ({
      content: 'Checking again.',
      toolCalls: [{ id: `t${i}`, name: 'lookup', args: { q: `q${i}` } }],
    }))
    const { agent, provider, seen } = searchAgent(steps, { exempt: ['lookup'] })
    await agent.run('find it').catch(() => undefined)
    expect(seen.map((e) => [e.step, e.pattern])).toEqual([
      ['nudge', 'repeated-text'],
      ['forced-change', 'repeated-text'],
      ['stop', 'repeated-text'],
    ])
    expect(provider.requests[4]?.toolChoice).toBe('none')
  })
})
