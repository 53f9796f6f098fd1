import { Type } from 'typebox'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { Agent, isReliabilityFailFastError, ProviderError, strictOutputRules } from '../../src/index.ts'
import { scripted, type ScriptedStepFunction } from '../../src/providers/index.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { call, invalidEvent, makeTools, turn, validEvent } from './tool-fixtures.ts'

describe('Agent', () => {
  it('returns the validated value from runTyped and the text from run', async () => {
    const agent = Agent.create({ provider: scripted(['nope', validRefundJson, validRefundJson]), model: 'm', name: 'billing' })
      .system('You decide refunds. Output JSON.')
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const refund = await agent.runTyped({ message: 'refund order #42 for $50' })
    expect(refund).toEqual(validRefund)
    expectTypeOf(refund).toEqualTypeOf<{ orderId: string; action: 'refund' | 'reject'; amount: number }>()
    expect(await agent.run('again')).toBe(validRefundJson)
    expect(agent.name).toBe('billing')
  })

  it('infers the value type of a Zod schema', async () => {
    const agent = Agent.create({ provider: scripted(['{"ok": true}']) })
      .outputSchema(z.object({ ok: z.boolean() }))
      .build()
    const value = await agent.runTyped('x')
    expectTypeOf(value).toEqualTypeOf<{ ok: boolean }>()
    expect(value).toEqual({ ok: true })
  })

  it('sends the system prompt and the persisted history with each run', async () => {
    const provider = scripted(['first answer', 'second answer'])
    const agent = Agent.create({ provider, model: 'm' }).system('Be brief.').build()
    await agent.run('one')
    await agent.run('two')
    expect(provider.requests[1]?.system).toBe('Be brief.')
    expect(provider.requests[1]?.model).toBe('m')
    expect(provider.requests[1]?.messages.map((m) => m.content)).toEqual(['one', 'first answer', 'two'])
  })

  it('commits only the accepted exchange, without feedback or rejected answers', async () => {
    const agent = Agent.create({ provider: scripted(['nope', '{"orderId": 1}', validRefundJson]) })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    await agent.run('refund #42')
    expect(agent.history).toEqual([
      { role: 'user', content: 'refund #42' },
      { role: 'assistant', content: validRefundJson },
    ])
  })

  it('leaves the history exactly as it was when a run fails', async () => {
    const agent = Agent.create({ provider: scripted(['hello', 'nope', 'nope']) })
      .outputSchema(Type.Object({ ok: Type.Boolean() }))
      .reliability({ postDecide: strictOutputRules(2) })
      .build()
    await expect(agent.run('first')).rejects.toSatisfy(isReliabilityFailFastError)
    expect(agent.history).toEqual([])
  })

  it('keeps sessions independent', async () => {
    const agent = Agent.create({ provider: scripted(['a', 'b', 'c']) }).build()
    const one = agent.session()
    const two = agent.session()
    await one.run('to one')
    await two.run('to two')
    await one.run('to one again')
    expect(one.history.map((m) => m.content)).toEqual(['to one', 'a', 'to one again', 'c'])
    expect(two.history.map((m) => m.content)).toEqual(['to two', 'b'])
    expect(agent.history).toEqual([])
  })

  it('refuses a second outputSchema() or reliability() call with a clear error', () => {
    const builder = Agent.create({ provider: scripted([]) })
    expect(() => builder.outputSchema(Refund).outputSchema(Refund)).toThrow(/already called/)
    expect(() => builder.reliability({}).reliability({})).toThrow(/already called/)
  })

  it('returns a new builder from every method', () => {
    const builder = Agent.create({ provider: scripted([]) })
    expect(builder.system('x')).not.toBe(builder)
  })

  it('rejects a provider without complete()', () => {
    expect(() => Agent.create({ provider: {} as never })).toThrow(/complete\(\)/)
  })

  it('emits events to agent.on and events$ and stops after unsubscribe', async () => {
    const agent = Agent.create({ provider: scripted(['nope', validRefundJson]) })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const stages: string[] = []
    const types: string[] = []
    const off = agent.on('validation_failed', (e) => stages.push(e.stage))
    const sub = agent.events$.subscribe((e) => types.push(e.type))
    await agent.run('x')
    off()
    sub.unsubscribe()
    expect(stages).toEqual(['json-parse'])
    expect(types).toContain('recovered')
  })
})

describe('Agent sessions under concurrency', () => {
  it('keeps a failing and a succeeding concurrent run apart, leaving the failed session untouched', async () => {
    let release: () => void = () => {}
    const started = new Promise<void>((resolve) => (release = resolve))
    const seenBy = { alpha: [] as string[], beta: [] as string[] }
    // The model answers from what it sees; both sessions' first turns wait so the runs interleave.
    const step: ScriptedStepFunction = async (request) => {
      const who = request.messages.some((m) => m.content.includes('alpha')) ? 'alpha' : 'beta'
      seenBy[who].push(...request.messages.map((m) => m.content))
      const last = request.messages.at(-1)
      if (last?.content === 'warm up alpha') return 'alpha is warm'
      if (last?.role === 'user' && last.ephemeral !== true) {
        await started
        // alpha keeps sending broken arguments; beta's are fine.
        return turn(call('create_event', who === 'alpha' ? invalidEvent : { ...validEvent, title: 'beta' }, `id-${who}`))
      }
      if (who === 'alpha' && last?.ephemeral === true) return turn(call('create_event', { ...invalidEvent, at: `later ${request.messages.length}` }, 'r'))
      if (who === 'alpha') throw new ProviderError('model down', { kind: 'http-5xx', status: 500 })
      return 'beta booked'
    }
    const tools = makeTools()
    const agent = Agent.create({ provider: scripted(Array.from({ length: 10 }, () => step)) })
      .tool(tools.eventTool)
      .build()
    const one = agent.session()
    const two = agent.session()
    await one.run('warm up alpha')
    const alphaBefore = one.history
    expect(alphaBefore).toHaveLength(2)
    release()
    const [a, b] = await Promise.allSettled([one.run('alpha again'), two.run('beta please')])
    expect(a.status).toBe('rejected')
    expect(b).toEqual({ status: 'fulfilled', value: 'beta booked' })
    expect(one.history).toBe(alphaBefore)
    expect(two.history.map((m) => m.content)).toEqual(['beta please', '', '{"created":"beta"}', 'beta booked'])
    expect(seenBy.beta.some((c) => c.includes('alpha') || c.includes('later'))).toBe(false)
    expect(seenBy.alpha.some((c) => c.includes('beta'))).toBe(false)
  })
})
