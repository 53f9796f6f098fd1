import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, isReliabilityFailFastError, ProviderError, strictOutputRules, tool, type GateEventMap, type Usage } from '../../src/index.ts'
import type { Logger } from '../../src/agent/index.ts'
import { scripted, type ScriptedStep, type ScriptedStepFunction } from '../../src/providers/index.ts'
import { call, invalidEvent, makeTools, turn, validEvent } from '../agent/tool-fixtures.ts'

const Verdict = Type.Object({ action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]) }, { additionalProperties: false })
// One dollar per 1024 tokens keeps every sum exact.
const priceUsage = (u: Usage) => (u.inputTokens + u.outputTokens) / 1024
const costing = (usd: number, step: string): ScriptedStep => ({ content: step, usage: { inputTokens: usd * 1024, outputTokens: 0 } })
const down = () => new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })

function recordingLogger() {
  const lines: string[] = []
  const logger: Logger = {
    debug: (l) => lines.push(`debug ${l}`),
    info: (l) => lines.push(`info ${l}`),
    warn: (l) => lines.push(`warn ${l}`),
  }
  return { lines, logger }
}

describe('tool-argument retry log levels (issue 3)', () => {
  it('logs llm_gave_up at info when the retry answers in text', async () => {
    const { lines, logger } = recordingLogger()
    const tools = makeTools()
    const agent = Agent.create({ provider: scripted([turn(call('create_event', invalidEvent)), 'I cannot.', 'Done.']), name: 'cal', logger }).tool(tools.eventTool).build()
    await agent.run('book')
    expect(lines).toEqual(['info validation_retry_outcome tool=create_event ext=cal outcome=llm_gave_up retry_count=1'])
  })

  it('logs llm_gave_up at info when the retry switches to another tool', async () => {
    const { lines, logger } = recordingLogger()
    const tools = makeTools()
    const provider = scripted([turn(call('create_event', invalidEvent)), turn(call('reply_email', { message_id: '18c4f2a9b7e3d105', body: 'x' })), 'Done.'])
    await Agent.create({ provider, logger }).tools([tools.eventTool, tools.replyTool]).build().run('book')
    expect(lines).toEqual(['info validation_retry_outcome tool=create_event ext=agent outcome=llm_gave_up retry_count=1'])
  })

  it('never lets a logger that throws affect the run', async () => {
    const explode = () => {
      throw new Error('log sink full')
    }
    const tools = makeTools()
    const provider = scripted([turn(call('create_event', invalidEvent)), turn(call('create_event', validEvent)), 'Booked.'])
    const agent = Agent.create({ provider, logger: { debug: explode, info: explode, warn: explode, error: explode } }).tool(tools.eventTool).build()
    const result = await agent.runDetailed('book')
    expect(result.text).toBe('Booked.')
    expect(result.functionsCalled[0]).toMatchObject({ outcome: 'success', status: 'ok' })
  })
})

describe('Agent provider failover (issue 3)', () => {
  it('switches provider on retry-other, asking each one for its own model', async () => {
    const primary = scripted([down()], { name: 'primary' })
    const backup = scripted(['{"action": "refund"}'], { name: 'backup' })
    const third = scripted([], { name: 'third' })
    const agent = Agent.create({ provider: primary, model: 'agent-default' })
      .outputSchema(Verdict)
      .reliability({
        providers: [
          { provider: primary, model: 'primary-large' },
          { provider: backup, model: 'backup-small' },
          { provider: third },
        ],
        postDecide: [{ when: (s) => s.errorKind === 'http-5xx' && s.canSwitchProvider, then: 'retry-other', kind: 'failover' }],
      })
      .build()
    const retries: GateEventMap['retry'][] = []
    agent.on('retry', (e) => retries.push(e))
    const result = await agent.runDetailed('refund?')
    expect(result.value).toEqual({ action: 'refund' })
    expect([primary.requests[0]?.model, backup.requests[0]?.model]).toEqual(['primary-large', 'backup-small'])
    expect(retries).toEqual([expect.objectContaining({ decision: 'retry-other', fromProvider: 'primary', toProvider: 'backup' })])
    expect(result.provider).toBe('backup')
    expect(third.calls).toBe(0)
  })

  it('asks an entry without a model for the agent model', async () => {
    const primary = scripted([down()], { name: 'primary' })
    const backup = scripted(['ok'], { name: 'backup' })
    await Agent.create({ provider: primary, model: 'agent-default' })
      .reliability({ providers: [{ provider: primary, model: 'primary-large' }, backup], postDecide: [{ when: (s) => s.errorKind !== 'ok', then: 'retry-other', kind: 'failover' }] })
      .build()
      .run('hi')
    expect(backup.requests[0]?.model).toBe('agent-default')
  })

  it('fails with kind no-more-providers past the last provider', async () => {
    const a = scripted([down()], { name: 'a' })
    const b = scripted([down()], { name: 'b' })
    const agent = Agent.create({ provider: a })
      .reliability({ providers: [a, b], postDecide: [{ when: (s) => s.errorKind !== 'ok', then: 'retry-other', kind: 'failover' }] })
      .build()
    const error = await agent.run('hi').catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'no-more-providers' })
    expect([a.calls, b.calls]).toEqual([1, 1])
    expect(agent.history).toEqual([])
  })

  it('validates the answer of the configured fallback like a model answer', async () => {
    const build = (answer: string) =>
      Agent.create({ provider: scripted([down()]) })
        .outputSchema(Verdict)
        .reliability({ postDecide: [{ when: (s) => s.errorKind === 'http-5xx', then: 'fallback', kind: 'use-fallback' }], fallback: () => answer })
        .build()
    expect(await build('{"action": "reject"}').runTyped('refund?')).toEqual({ action: 'reject' })
    await expect(build('{"action": "maybe"}').runTyped('refund?')).rejects.toMatchObject({ kind: 'fallback-invalid' })
  })
})

describe('Agent outputFallback and the breaker (issue 3)', () => {
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

  it('never counts an aborted agent run as a breaker failure', async () => {
    const controller = new AbortController()
    const hang: ScriptedStepFunction = () => (controller.abort(), new Promise<never>(() => {}))
    const provider = scripted([hang, 'answer'])
    const agent = Agent.create({ provider }).reliability({ breaker: { failureThreshold: 1, cooldownMs: 60_000 } }).build()
    await expect(agent.run('one', { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' })
    expect(await agent.run('two')).toBe('answer')
    expect(provider.calls).toBe(2)
  })
})

describe('Agent costBudget inside one model turn (issue 3)', () => {
  it('halts a schema retry before the provider is called once the run has spent its budget', async () => {
    const provider = scripted([costing(1, 'nope'), costing(1, '{"action": 1}'), '{"action": "refund"}'])
    const agent = Agent.create({ provider })
      .outputSchema(Verdict)
      .reliability({ postDecide: strictOutputRules(3), priceUsage })
      .costBudget({ usd: 0.5, onExceed: 'halt' })
      .build()
    const exceeded: GateEventMap['budget_exceeded'][] = []
    agent.on('budget_exceeded', (e) => exceeded.push(e))
    const error = await agent.run('refund?').catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'budget-exceeded', phase: 'pre-check', costUsd: 1 })
    expect(isReliabilityFailFastError(error) && error.attempts).toHaveLength(1)
    expect(provider.calls).toBe(1)
    expect(exceeded).toEqual([{ runId: expect.any(String), turn: 1, budgetUsd: 0.5, spentUsd: 1, action: 'halt' }])
  })

  it('counts earlier turns of the run against a retry of a later turn', async () => {
    const tools = makeTools()
    const provider = scripted([
      { ...turn(call('create_event', validEvent)), usage: { inputTokens: 512, outputTokens: 0 } },
      costing(0.25, 'nope'),
      costing(0.25, '{"action": 1}'),
      '{"action": "refund"}',
    ])
    const agent = Agent.create({ provider })
      .outputSchema(Verdict)
      .tool(tools.eventTool)
      .reliability({ postDecide: strictOutputRules(5), priceUsage })
      .costBudget({ usd: 0.75 })
      .build()
    // $0.50 for the tool turn + $0.25 for the answer turn's first attempt: its retry is never made.
    await expect(agent.run('book and refund')).rejects.toMatchObject({ kind: 'budget-exceeded', costUsd: 0.75 })
    expect(provider.calls).toBe(2)
  })

  it('warns once within a turn and lets the retries go on', async () => {
    const provider = scripted([costing(1, 'nope'), costing(1, '{"action": 1}'), '{"action": "refund"}'])
    const agent = Agent.create({ provider })
      .outputSchema(Verdict)
      .reliability({ postDecide: strictOutputRules(3), priceUsage })
      .costBudget({ usd: 0.5, onExceed: 'warn' })
      .build()
    const exceeded: GateEventMap['budget_exceeded'][] = []
    agent.on('budget_exceeded', (e) => exceeded.push(e))
    expect(await agent.runTyped('refund?')).toEqual({ action: 'refund' })
    expect(provider.calls).toBe(3)
    expect(exceeded).toEqual([{ runId: expect.any(String), turn: 1, budgetUsd: 0.5, spentUsd: 1, action: 'warn' }])
  })

  it('starts every run with a fresh budget', async () => {
    const provider = scripted([costing(0.25, 'nope'), '{"action": "refund"}', costing(0.25, 'nope'), '{"action": "reject"}'])
    const agent = Agent.create({ provider })
      .outputSchema(Verdict)
      .reliability({ postDecide: strictOutputRules(3), priceUsage })
      .costBudget({ usd: 0.5 })
      .build()
    expect(await agent.runTyped('one')).toEqual({ action: 'refund' })
    expect(await agent.runTyped('two')).toEqual({ action: 'reject' })
  })
})

describe('Agent sessions under concurrency (issue 3)', () => {
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
    const agent = Agent.create({ provider: scripted(Array.from({ length: 10 }, () => step)) }).tool(tools.eventTool).build()
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

describe('Agent maxIterations (issue 3)', () => {
  it('names the limit and the tools still called in its error', async () => {
    const noop = tool({ name: 'noop', description: '', input: Type.Object({}), execute: () => 'ok' })
    const provider = scripted([turn(call('noop', {}, 'a'))])
    const error = await Agent.create({ provider, maxIterations: 1 }).tool(noop).build().run('go').catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect((error as Error).message).toMatch(/max-iterations.*no final answer after 1 model turns \(maxIterations = 1\).*noop/)
  })

  it('rejects a maxIterations below 1 when the agent is built', () => {
    expect(() => Agent.create({ provider: scripted([]), maxIterations: 0 }).build()).toThrow(/maxIterations must be a positive integer/)
  })
})

describe('Agent tool-argument retry edges (issue 3)', () => {
  it('ends a call as fabricated_id_on_retry when the retry invents an ID, even in arguments that also fail the schema', async () => {
    const tools = makeTools()
    const provider = scripted([turn(call('reply_email', { body: 'ok' })), turn(call('reply_email', { message_id: 'acme-mail-2' })), 'Done.'])
    const result = await Agent.create({ provider }).tool(tools.replyTool).build().runDetailed('reply')
    expect(provider.calls).toBe(3)
    expect(result.functionsCalled).toEqual([expect.objectContaining({ outcome: 'fabricated_id_on_retry', status: 'guard-rejected', retryCount: 1, args: { message_id: 'acme-mail-2' } })])
    expect(tools.reply).not.toHaveBeenCalled()
  })

  it('stops with kind aborted, without another model call, when the run is aborted during an argument retry', async () => {
    const controller = new AbortController()
    const tools = makeTools()
    const provider = scripted([turn(call('create_event', invalidEvent)), () => (controller.abort(), new Promise<never>(() => {})), 'never'])
    const agent = Agent.create({ provider }).tool(tools.eventTool).build()
    await expect(agent.run('book', { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' })
    expect(provider.calls).toBe(2)
    expect(tools.createEvent).not.toHaveBeenCalled()
    expect(agent.history).toEqual([])
  })
})
