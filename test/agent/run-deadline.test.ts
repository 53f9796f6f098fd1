import { Type } from 'typebox'
import { describe, expect, it, vi } from 'vitest'
import { Agent, isReliabilityFailFastError, tool, type GateEventMap } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { heldProvider } from '../support/held-provider.ts'
import { call, turn } from './tool-fixtures.ts'

const Input = Type.Object({ q: Type.String() })
const never = (): Promise<never> => new Promise(() => {})
const HOSTILE_DURATIONS: readonly unknown[] = [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '100', 2 ** 31, 1.5]

/** An agent whose one tool never settles (and ignores its signal), over a model that calls it once. */
function hungAgent(runTimeoutMs?: number) {
  const execute = vi.fn(never)
  const hung = tool({ name: 'hung', description: 'never answers', input: Input, execute })
  const provider = scripted([turn(call('hung', { q: 'x' })), 'never reached'])
  const builder = Agent.create({ provider, model: 'm' }).tool(hung)
  const agent = (runTimeoutMs === undefined ? builder : builder.reliability({ runTimeoutMs })).build()
  return { agent, provider, execute }
}

describe('an agent run under runTimeoutMs', () => {
  it('fails with kind run-timeout when a tool never settles, under the per-call runTimeoutMs', async () => {
    const { agent, provider, execute } = hungAgent()
    const error = await agent.run('go', { runTimeoutMs: 50 }).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'run-timeout' })
    expect((error as Error).message).toContain('runTimeoutMs')
    expect(execute).toHaveBeenCalledTimes(1)
    expect(provider.calls).toBe(1)
    expect(agent.history).toEqual([])
  })

  it('fails with kind run-timeout when a tool never settles, under the agent’s reliability runTimeoutMs', async () => {
    const { agent } = hungAgent(50)
    const ends: GateEventMap['agent_run_end'][] = []
    agent.on('agent_run_end', (e) => ends.push(e))
    const error = await agent.runDetailed('go').catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'run-timeout' })
    expect(ends.map((e) => e.kind)).toEqual(['run-timeout'])
    expect(agent.history).toEqual([])
  })

  it('fails with kind run-timeout when the model never answers, on run and on stream', async () => {
    const agent = Agent.create({ provider: heldProvider('late').provider, model: 'm' }).build()
    await expect(agent.run('go', { runTimeoutMs: 50 })).rejects.toMatchObject({ kind: 'run-timeout' })
    await expect(agent.stream('go', { runTimeoutMs: 50 }).result).rejects.toMatchObject({ kind: 'run-timeout' })
    expect(agent.history).toEqual([])
  })

  it('gives the caller’s own abort its kind, aborted, when the signal wins over the deadline', async () => {
    const { agent } = hungAgent()
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 5)
    const error = await agent.run('go', { signal: controller.signal, runTimeoutMs: 60_000 }).catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'aborted' })
  })

  it('bounds the whole run, not each model call: a run within its deadline answers', async () => {
    const execute = vi.fn(async () => 'done')
    const quick = tool({ name: 'quick', description: 'answers', input: Input, execute })
    const provider = scripted([turn(call('quick', { q: 'x' })), 'the answer'])
    const agent = Agent.create({ provider, model: 'm' }).tool(quick).build()
    expect(await agent.run('go', { runTimeoutMs: 60_000 })).toBe('the answer')
    expect(agent.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })

  it('refuses a misspelt option of agent.run, runTyped, runDetailed and stream with "did you mean", without a model call', async () => {
    const provider = scripted(['never reached'])
    const agent = Agent.create({ provider, model: 'm' }).build()
    const signal = new AbortController().signal
    await expect(agent.run('go', { singal: signal } as never)).rejects.toThrow(/agent\.run: unknown option "singal" \(did you mean "signal"\?\)/)
    await expect(agent.runTyped('go', { runTimoutMs: 5 } as never)).rejects.toThrow(/did you mean "runTimeoutMs"/)
    await expect(agent.runDetailed('go', { runid: 'r' } as never)).rejects.toThrow(/did you mean "runId"/)
    expect(() => agent.stream('go', { mod: 'buffer' } as never)).toThrow(/agent\.stream: unknown option "mod" \(did you mean "mode"\?\)/)
    expect(provider.calls).toBe(0)
  })

  it.each(HOSTILE_DURATIONS.map((value) => [String(value), value]))('refuses runTimeoutMs = %s before the model is called', async (_shown, value) => {
    const provider = scripted(['never reached'])
    const agent = Agent.create({ provider, model: 'm' }).build()
    const error = await agent.run('go', { runTimeoutMs: value as number }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RangeError)
    expect((error as Error).message).toContain('agent.run: runTimeoutMs must be a whole number of milliseconds from 1 to 2147483647')
    expect(() => agent.stream('go', { runTimeoutMs: value as number })).toThrow(/agent\.stream: runTimeoutMs must be/)
    expect(provider.calls).toBe(0)
  })

  it.each(HOSTILE_DURATIONS.map((value) => [String(value), value]))('refuses reliability({ runTimeoutMs: %s }) when the agent is built', (_shown, value) => {
    const builder = Agent.create({ provider: scripted(['x']), model: 'm' })
    expect(() => builder.reliability({ runTimeoutMs: value as number })).toThrow(/Agent\.reliability: runTimeoutMs must be a whole number of milliseconds/)
  })

  it('refuses misspelt keys of Agent.create and reliability with "did you mean"', () => {
    const provider = scripted(['x'])
    expect(() => Agent.create({ provider, maxIteration: 3 } as never)).toThrow(/did you mean "maxIterations"/)
    expect(() => Agent.create({ provider }).reliability({ runTimoutMs: 5 } as never)).toThrow(/did you mean "runTimeoutMs"/)
  })
})
