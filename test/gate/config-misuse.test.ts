import { describe, expect, it } from 'vitest'
import { EventHub } from '../../src/events/index.ts'
import { Agent, circuitBreaker, createGate, failoverRule, type GateConfig, type Provider, ProviderError } from '../../src/index.ts'
import { ask, Refund, validRefund, validRefundJson } from '../support/schemas.ts'

const provider: Provider = {
  name: 'p',
  complete: async () => ({ content: validRefundJson, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }),
}

// One wrong value per option, with the words the error must use.
const WRONG: readonly [key: string, value: unknown, message: RegExp][] = [
  ['model', 42, /createGate: model must be a non-empty string, got 42/],
  ['model', '', /createGate: model must be a non-empty string, got ""/],
  ['fallback', 'canned answer', /createGate: fallback must be a function of the scope, got "canned answer"/],
  ['priceUsage', { input: 1 }, /createGate: priceUsage must be a function \(usage, model, provider\) => USD, got object/],
  ['pricing', 'gpt-4o', /createGate: pricing must be a table of prices by model, got "gpt-4o"/],
  ['breaker', 'on', /createGate: breaker must be circuit breaker options, a CircuitBreaker or false, got "on"/],
  ['breaker', true, /got true/],
  ['budget', 'team-budget', /createGate: budget must be a shared budget made by sharedBudget\(\), got "team-budget"/],
  ['budget', { usd: 10 }, /budget must be a shared budget made by sharedBudget\(\), got object/],
  ['rateLimit', 60, /createGate: rateLimit must be a shared rate limit made by sharedRateLimit\(\), got 60/],
  ['middleware', () => undefined, /createGate: middleware must be an array of links, got function/],
  ['events', {}, /createGate: events must be an EventHub, got object/],
  ['now', Date.now(), /createGate: now must be a function returning milliseconds, got \d+/],
  ['feedbackMode', 'all', /createGate: feedbackMode must be 'latest' or 'accumulate', got "all"/],
  ['errorFeedback', 'yes', /createGate: errorFeedback must be a boolean, got "yes"/],
  ['errorTemplate', 7, /createGate: errorTemplate must be a template string or a function of the variables, got 7/],
  ['repair', 1, /createGate: repair must be a boolean, got 1/],
  ['retryHint', ['be brief'], /createGate: retryHint must be a string, got an array/],
]

/** A provider named `p` whose every call fails with a 503: it opens its circuit at a threshold of 1. */
const failing: Provider = {
  name: 'p',
  complete: async () => {
    throw new ProviderError('down', { kind: 'http-5xx', status: 503 })
  },
}

describe('createGate refuses options of the wrong type where they are written', () => {
  it.each([
    ['null', null, /got null/],
    ['undefined', undefined, /got undefined/],
    ['an array', [provider], /got an array/],
    ['a provider function', () => provider, /got function/],
  ])('a config that is %s', (_name, config, message) => {
    expect(() => createGate(config as never)).toThrow(TypeError)
    expect(() => createGate(config as never)).toThrow(new RegExp(`createGate: expected an object of options, ${message.source}`))
  })

  it.each([
    ['null', null, /createGate: `providers` must be a provider or an array of providers, got null/],
    ['a string', 'openai', /`providers` must be a provider or an array of providers, got string/],
    ['a list holding null', [null], /createGate: providers\[0\] has no complete\(\) method/],
    ['a list holding an object without complete', [provider, { name: 'x' }], /createGate: providers\[1\] has no complete\(\) method/],
    ['an entry whose provider is null', [{ provider: null, model: 'm' }], /providers\[0\] has no complete\(\) method/],
    ['an entry with a misspelt model', [provider, { provider, modle: 'm' }], /createGate: providers\[1\]: unknown option "modle" \(did you mean "model"\?\)/],
    ['an entry whose name is empty', [{ provider, name: '' }], /createGate: providers\[0\]: name must be a non-empty string, got ""/],
    ['an entry whose name is no string', [{ provider, name: 42 }], /createGate: providers\[0\]: name must be a non-empty string, got 42/],
    ['an entry whose model is no string', [{ provider, model: ['m'] }], /createGate: providers\[0\]: model must be a non-empty string, got an array/],
    // The name keys the breaker: a provider without one would open no circuit at all.
    [
      'a provider whose name is no string',
      [provider, { ...provider, name: 5 }],
      /createGate: providers\[1\]\.name must be a non-empty string \(or give \{ provider, name \}\), got 5/,
    ],
    ['a provider without a name', [{ complete: provider.complete }], /createGate: providers\[0\]\.name must be a non-empty string .*got undefined/],
    ['a provider whose name is empty', { ...provider, name: '' }, /createGate: providers\[0\]\.name must be a non-empty string .*got ""/],
  ])('providers that are %s', (_name, providers, message) => {
    expect(() => createGate({ providers } as never)).toThrow(message)
  })

  it("keeps a breaker apart for two different providers of one name, so the backup never shares the first one's open circuit", async () => {
    const states: string[] = []
    const gate = createGate({ providers: [failing, provider], outputSchema: Refund, breaker: { failureThreshold: 1 }, postDecide: [failoverRule()] })
    gate.on('breaker_state', (e) => states.push(`${e.provider} ${e.from}->${e.to}`))
    // The first opens its circuit; the backup of the same name answers, run after run.
    expect((await gate.run(ask('hi'))).value).toEqual(validRefund)
    const second = await gate.run(ask('hi'))
    expect([second.value, second.attempts.map((a) => a.status)]).toEqual([validRefund, ['circuit_open', 'success']])
    expect(states).toEqual(['p closed->open'])
  })

  it('never gives a backup the breaker key another provider is named, so no two providers share an open circuit, whatever their names', async () => {
    const failingToo: Provider = { ...failing }
    for (const providers of [
      [failing, failingToo, { provider, name: 'p#2' }],
      [{ provider: failing, name: 'p#2' }, failingToo, provider],
    ]) {
      const gate = createGate({ providers, outputSchema: Refund, breaker: { failureThreshold: 1 }, postDecide: [failoverRule()] })
      // The two failing providers open their circuits; the third, on a circuit of its own, answers.
      const result = await gate.run(ask('hi'))
      expect(result.value).toEqual(validRefund)
      expect(result.attempts.map((a) => a.status)).not.toContain('circuit_open')
    }
  })

  it('takes a nameless provider when its entry names it, and opens its circuit under that name', async () => {
    const gate = createGate({
      providers: [{ provider: { complete: failing.complete } as unknown as Provider, name: 'primary' }, provider],
      breaker: { failureThreshold: 1 },
      postDecide: [failoverRule()],
    })
    const states: string[] = []
    gate.on('breaker_state', (e) => states.push(`${e.provider}:${e.to}`))
    await expect(gate.run(ask('refund'))).resolves.toMatchObject({ value: validRefundJson })
    expect(states).toEqual(['primary:open'])
  })

  it('gives the same provider listed twice (another model of it) one breaker', async () => {
    const gate = createGate({
      providers: [failing, { provider: failing, model: 'small' }, { provider, name: 'backup' }],
      outputSchema: Refund,
      breaker: { failureThreshold: 1 },
      postDecide: [failoverRule()],
    })
    await gate.run(ask('hi'))
    // Its other model is behind the same open circuit: refused at once, never called.
    expect((await gate.run(ask('hi'))).attempts.map((a) => a.status)).toEqual(['circuit_open', 'circuit_open', 'success'])
  })

  it('fails over to a named backup when the first provider opens its circuit', async () => {
    const gate = createGate({
      providers: [failing, { provider, name: 'backup' }],
      outputSchema: Refund,
      breaker: { failureThreshold: 1 },
      postDecide: [failoverRule()],
    })
    expect((await gate.run(ask('hi'))).value).toEqual(validRefund)
    expect((await gate.run(ask('hi'))).value).toEqual(validRefund)
  })

  it.each(WRONG)('%s = %o', (key, value, message) => {
    expect(() => createGate({ providers: [provider], [key]: value } as GateConfig)).toThrow(TypeError)
    expect(() => createGate({ providers: [provider], [key]: value } as GateConfig)).toThrow(message)
  })

  it.each([
    ['maxAttempts', 1.5],
    ['maxAttempts', 0],
    ['maxFeedbackChars', 4000.5],
    ['maxFeedbackTokens', 0.5],
  ])('%s = %s: a count is a whole number, refused with a RangeError', (key, value) => {
    expect(() => createGate({ providers: [provider], [key]: value } as GateConfig)).toThrow(RangeError)
    expect(() => createGate({ providers: [provider], [key]: value } as GateConfig)).toThrow(
      new RegExp(`createGate: ${key} must be a positive integer, got ${value}`),
    )
  })

  it('builds and runs with every checked option given a value of the right type', async () => {
    const gate = createGate({
      providers: [provider],
      outputSchema: Refund,
      model: 'm',
      fallback: () => validRefundJson,
      priceUsage: () => 0,
      breaker: circuitBreaker({ failureThreshold: 3, cooldownMs: 1000 }),
      middleware: [(ctx, next) => next(ctx.request)],
      events: new EventHub(),
      now: () => performance.now(),
      feedbackMode: 'accumulate',
      errorFeedback: false,
      errorTemplate: 'fix {{ errors }}',
      repair: false,
      retryHint: 'JSON only',
    })
    expect((await gate.run(ask('hi'))).value).toEqual(validRefund)
    expect(() => createGate({ providers: provider, breaker: false, pricing: {} })).not.toThrow()
  })

  it('runs with a clock that throws or answers no number: its durations are NaN (unknown), never an error out of the run', async () => {
    const clocks: readonly (() => number)[] = [
      () => {
        throw new Error('clock')
      },
      () => 'soon' as unknown as number,
    ]
    for (const now of clocks) {
      const gate = createGate({ providers: [provider], outputSchema: Refund, now })
      const result = await gate.run(ask('hi'))
      expect(result.value).toEqual(validRefund)
      expect(result.attempts[0]?.latencyMs).toBeNaN()
    }
  })

  it('Agent.reliability refuses the same values under its own name', () => {
    const builder = () => Agent.create({ provider, model: 'm', name: 'a' })
    expect(() => builder().reliability(null as never)).toThrow(/Agent\.reliability: expected an object of options, got null/)
    for (const [key, value, message] of WRONG) {
      expect(() => builder().reliability({ [key]: value } as never)).toThrow(new RegExp(message.source.replace('createGate', 'Agent\\.reliability')))
    }
  })

  it('refuses an option whose getter throws with a TypeError naming the option, in createGate and Agent.create alike', () => {
    const throwing = (options: object, key: string): object =>
      Object.defineProperty(options, key, {
        enumerable: true,
        get() {
          throw new Error('boom')
        },
      })
    expect(() => createGate(throwing({ providers: [provider] }, 'timeoutMs') as GateConfig)).toThrow(
      new TypeError('createGate: reading option "timeoutMs" threw: boom'),
    )
    expect(() => Agent.create(throwing({ provider }, 'maxIterations') as never)).toThrow(
      new TypeError('Agent.create: reading option "maxIterations" threw: boom'),
    )
  })

  it('builds an agent from the options it checked: a getter read once, whatever it answers later', async () => {
    let reads = 0
    const options = {
      provider,
      get name(): unknown {
        reads++
        return reads === 1 ? 'billing' : 42
      },
    }
    const agent = Agent.create(options as never).build()
    expect(reads).toBe(1)
    await expect(agent.run('hi')).resolves.toBeDefined()
  })
})

describe('on() refuses what would never be heard', () => {
  it('an unknown event name, with the list of names', () => {
    const gate = createGate({ providers: [provider] })
    expect(() => gate.on('validation_faild' as never, () => undefined)).toThrow(TypeError)
    expect(() => gate.on('validation_faild' as never, () => undefined)).toThrow(
      /on: unknown event "validation_faild" \(did you mean "validation_failed"\?\); the events are run_start, .*validation_failed/,
    )
    const agent = Agent.create({ provider, model: 'm', name: 'a' }).build()
    expect(() => agent.on('toolStart' as never, () => undefined)).toThrow(/unknown event "toolStart" \(did you mean "tool_start"\?\)/)
    expect(() => agent.on('nothing_like_any' as never, () => undefined)).toThrow(/unknown event "nothing_like_any"; the events are/)
  })

  it('a name that is no string, or a huge one, in a bounded message', () => {
    const gate = createGate({ providers: [provider] })
    expect(() => gate.on(null as never, () => undefined)).toThrow(/on: the event name must be a string, got null/)
    expect(() => gate.on(42 as never, () => undefined)).toThrow(/on: the event name must be a string, got 42/)
    let message = ''
    try {
      gate.on('x'.repeat(100_000) as never, () => undefined)
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).toMatch(/unknown event "x{60}…"/)
    expect(message.length).toBeLessThan(2000)
  })

  it('a listener that is not a function, before any run', () => {
    const gate = createGate({ providers: [provider] })
    expect(() => gate.on('validation_failed', 'log' as never)).toThrow(/on\('validation_failed'\): the listener must be a function, got string/)
    expect(() => gate.on('run_end', undefined as never)).toThrow(/the listener must be a function, got undefined/)
  })
})
