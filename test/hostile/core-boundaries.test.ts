import { describe, expect, it } from 'vitest'
import {
  Agent,
  createGate,
  memoryStore,
  sharedBudget,
  strictOutputRules,
  type Middleware,
  type ModelRequest,
  type ModelResponse,
  type Provider,
  type ReliabilityRule,
} from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { expectNoUnhandledRejections } from '../support/no-unhandled-rejections.ts'

/** Every hostile case must settle well within this (the deadlines under test are 30-80 ms). */
const BOUND_MS = 2_000
const never = <T>(): Promise<T> => new Promise<T>(() => {})
const answer = (content: string): ModelResponse => ({ content, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' })

/** Settles `work` or fails the test past the bound: a hang is a defect, never a slow pass. */
async function within<T>(work: Promise<T>): Promise<{ ok: T } | { error: unknown }> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${BOUND_MS} ms`)), BOUND_MS)
  })
  try {
    return await Promise.race([work.then((ok) => ({ ok })), bound]).catch((error: unknown) => {
      if (error instanceof Error && error.message.startsWith('did not settle')) throw error
      return { error }
    })
  } finally {
    clearTimeout(timer)
  }
}

expectNoUnhandledRejections()

function counting(content = validRefundJson): Provider & { calls: number; requests: ModelRequest[] } {
  const p = {
    name: 'p',
    calls: 0,
    requests: [] as ModelRequest[],
    complete(request: ModelRequest) {
      p.calls++
      p.requests.push(request)
      return Promise.resolve(answer(content))
    },
  }
  return p
}

describe('listeners at the boundary', () => {
  it('a listener returning a rejected promise is reported as listener_error, never an unhandled rejection', async () => {
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: Refund })
    const reported: unknown[] = []
    gate.on('listener_error', (e) => reported.push(e.error))
    gate.on('attempt_end', () => Promise.reject(new Error('async listener broke')))
    const r = await within(gate.run(ask('x')))
    expect(r).toMatchObject({ ok: { value: validRefund } })
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(reported).toEqual([expect.objectContaining({ message: 'async listener broke' })])
  })

  it('a listener returning a thenable whose then throws is contained too', async () => {
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: Refund })
    const reported: unknown[] = []
    gate.on('listener_error', (e) => reported.push(e.event))
    gate.on('run_end', () =>
      Object.defineProperty({}, 'then', {
        get() {
          throw new Error('then getter')
        },
      }),
    )
    expect(await within(gate.run(ask('x')))).toMatchObject({ ok: { value: validRefund } })
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(reported).toEqual(['run_end'])
  })

  it('an attempt_start listener that edits the request in place neither changes what is sent nor the caller’s request', async () => {
    const provider = counting()
    const gate = createGate({ providers: provider, outputSchema: Refund })
    const errors: unknown[] = []
    gate.on('listener_error', (e) => errors.push(e.error))
    gate.on('attempt_start', (e) => {
      ;(e.request.messages as unknown as { content: string }[])[0]!.content = 'forged'
    })
    const request = ask('the caller’s words')
    await within(gate.run(request))
    expect(request.messages[0]?.content).toBe('the caller’s words')
    expect(provider.requests[0]?.messages[0]?.content).toBe('the caller’s words')
    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(TypeError)
  })
})

describe('rules at the boundary', () => {
  const rule = (when: ReliabilityRule['when'], then: ReliabilityRule['then'] = 'fail-fast'): ReliabilityRule => ({ kind: 'custom-stop', when, then })

  it('a when that rejects counts as not matching and is reported as rule_error', async () => {
    const gate = createGate({
      providers: scripted([validRefundJson]),
      outputSchema: Refund,
      postDecide: [rule(() => Promise.reject(new Error('no')) as never)],
    })
    const errors: string[] = []
    gate.on('rule_error', (e) => errors.push(e.where))
    expect(await within(gate.run(ask('x')))).toMatchObject({ ok: { value: validRefund } })
    expect(errors).toEqual(['when'])
  })

  it('a when that answers a promise of true is awaited and its decision taken', async () => {
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: Refund, postDecide: [rule(() => Promise.resolve(true) as never)] })
    const r = await within(gate.run(ask('x')))
    expect(r).toMatchObject({ error: { kind: 'custom-stop' } })
  })

  it('a PreCheck when that never settles is bounded by runTimeoutMs: kind run-timeout, no provider call', async () => {
    const provider = counting()
    const gate = createGate({ providers: provider, preCheck: [rule(() => never() as never)], runTimeoutMs: 50 })
    const r = await within(gate.run(ask('x')))
    expect(r).toMatchObject({ error: { kind: 'run-timeout' } })
    expect(provider.calls).toBe(0)
  })

  it('a feedbackForLLM that never settles is bounded by runTimeoutMs', async () => {
    const provider = scripted(['not json', validRefundJson])
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      postDecide: [{ kind: 'fix', when: (s) => s.errorKind === 'schema-fail', then: 'retry', feedbackForLLM: () => never<string>() }],
      runTimeoutMs: 60,
    })
    const r = await within(gate.run(ask('x')))
    expect(r).toMatchObject({ error: { kind: 'run-timeout' } })
    expect(provider.calls).toBe(1)
  })

  it('a feedbackForLLM that rejects sends the generic feedback and reports rule_error', async () => {
    const provider = scripted(['not json', validRefundJson])
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      postDecide: [{ kind: 'fix', when: (s) => s.errorKind === 'schema-fail', then: 'retry', feedbackForLLM: () => Promise.reject(new Error('boom')) }],
    })
    const errors: string[] = []
    gate.on('rule_error', (e) => errors.push(e.where))
    expect(await within(gate.run(ask('x')))).toMatchObject({ ok: { value: validRefund } })
    expect(errors).toEqual(['feedbackForLLM'])
    expect(provider.requests[1]?.messages.at(-1)?.content).toMatch(/Previous output failed validation/)
  })

  it('a delayMs function answering a promise that rejects is reported and means no wait (its rejection contained)', async () => {
    const provider = scripted(['not json', validRefundJson])
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      postDecide: [{ kind: 'fix', when: (s) => s.errorKind === 'schema-fail', then: 'retry', delayMs: () => Promise.reject(new Error('late')) }],
    })
    const errors: string[] = []
    gate.on('rule_error', (e) => errors.push(e.where))
    expect(await within(gate.run(ask('x')))).toMatchObject({ ok: { value: validRefund } })
    expect(errors).toEqual(['delayMs'])
  })

  it('a delayMs function answering a promise is awaited, as every user function is: the retry waits what it resolves to', async () => {
    const provider = scripted(['not json', validRefundJson])
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      postDecide: [{ kind: 'fix', when: (s) => s.errorKind === 'schema-fail', then: 'retry', delayMs: async () => 3 }],
    })
    const waits: number[] = []
    gate.on('retry', (e) => waits.push(e.delayMs))
    expect(await within(gate.run(ask('x')))).toMatchObject({ ok: { value: validRefund } })
    expect(waits).toEqual([3])
  })

  it('a delayMs function whose promise never settles holds the run no longer than its runTimeoutMs', async () => {
    const provider = scripted(['not json', validRefundJson])
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      runTimeoutMs: 40,
      postDecide: [{ kind: 'fix', when: (s) => s.errorKind === 'schema-fail', then: 'retry', delayMs: () => new Promise<number>(() => {}) }],
    })
    const r = await within(gate.run(ask('x')))
    expect(r).toMatchObject({ error: { kind: 'run-timeout' } })
    expect(provider.requests).toHaveLength(1)
  })
})

describe('middleware at the boundary', () => {
  it('an edit in place of ctx.request fails the attempt and reaches neither the caller nor the provider', async () => {
    const provider = counting()
    const editing: Middleware = function editing(ctx, next) {
      ;(ctx.request.messages as unknown as { content: string }[])[0]!.content = 'forged'
      return next()
    }
    const gate = createGate({ providers: provider, outputSchema: Refund, middleware: [editing] })
    const request = ask('mine')
    const r = await within(gate.run(request))
    expect(r).toMatchObject({ error: { kind: 'unknown' } })
    expect(request.messages[0]?.content).toBe('mine')
    expect(provider.calls).toBe(0)
  })

  it('an edit in place of ctx.baseRequest, ctx.metadata or ctx itself fails the attempt and reaches neither the caller, the provider nor a later link', async () => {
    const edits: [string, (ctx: Parameters<Middleware>[0]) => void][] = [
      ['baseRequest.messages', (ctx) => (ctx.baseRequest.messages as unknown as unknown[]).push({ role: 'user', content: 'forged' })],
      ['a base message', (ctx) => ((ctx.baseRequest.messages as unknown as { content: string }[])[0]!.content = 'forged')],
      ['baseRequest', (ctx) => ((ctx.baseRequest as { model?: string }).model = 'forged')],
      ['metadata', (ctx) => ((ctx.metadata as Record<string, unknown>)['tenant'] = 'forged')],
      ['ctx', (ctx) => ((ctx as { attempt: number }).attempt = 99)],
    ]
    for (const [what, edit] of edits) {
      const provider = counting()
      const seen: unknown[] = []
      const editing: Middleware = function editing(ctx, next) {
        edit(ctx)
        return next()
      }
      const later: Middleware = function later(ctx, next) {
        seen.push([ctx.attempt, ctx.metadata?.['tenant']])
        return next()
      }
      const gate = createGate({ providers: provider, outputSchema: Refund, middleware: [editing, later] })
      const request = ask('mine')
      const metadata = { tenant: 'acme' }
      const r = await within(gate.run(request, { metadata }))
      expect(r, what).toMatchObject({ error: { kind: 'unknown' } })
      expect(request, what).toEqual(ask('mine'))
      expect(metadata, what).toEqual({ tenant: 'acme' })
      expect(seen, what).toEqual([])
      expect(provider.calls, what).toBe(0)
    }
  })

  it('a change made through next(changed) is what the provider receives, the caller’s request untouched', async () => {
    const provider = counting()
    const redact: Middleware = function redact(ctx, next) {
      return next({ ...ctx.request, messages: ctx.request.messages.map((m) => ({ ...m, content: m.content.replace('secret', '[x]') })) })
    }
    const gate = createGate({ providers: provider, outputSchema: Refund, middleware: [redact] })
    const request = ask('my secret')
    await within(gate.run(request))
    expect(provider.requests[0]?.messages[0]?.content).toBe('my [x]')
    expect(request.messages[0]?.content).toBe('my secret')
  })

  const NOT_A_REQUEST = /middleware swapper called next\(\) with something that is not a request/
  const UNSENDABLE = /middleware swapper called next\(\) with a request that cannot be sent: request[.:]/
  it.each([
    ['a string', 'not a request', NOT_A_REQUEST],
    ['null', null, NOT_A_REQUEST],
    ['an object without messages', { prompt: 'x' }, NOT_A_REQUEST],
    ['messages that are no array', { messages: 'hi' }, NOT_A_REQUEST],
    ['a request with a message that is a number', { messages: [5] }, UNSENDABLE],
    ['a request with a message of no role', { messages: [{ role: 'wizard', content: 'x' }] }, UNSENDABLE],
    ['a request with a content that is no string', { messages: [{ role: 'user', content: 42 }] }, UNSENDABLE],
    ['a request with a misspelt key', { messages: [{ role: 'user', content: 'x' }], toolchoice: 'auto' }, UNSENDABLE],
    ['a request with maxTokens below 1', { messages: [{ role: 'user', content: 'x' }], maxTokens: -5 }, UNSENDABLE],
  ])('next() with %s fails the attempt with a TypeError naming the middleware, and calls no provider', async (_, given, message) => {
    const provider = counting()
    const bad: Middleware = function swapper(_ctx, next) {
      return next(given as never)
    }
    const gate = createGate({ providers: provider, outputSchema: Refund, middleware: [bad] })
    const r = await within(gate.run(ask('x')))
    expect(r).toMatchObject({ error: { kind: 'unknown' } })
    const cause = (r as { error: { attempts: { error: unknown }[] } }).error.attempts[0]?.error
    expect(cause).toBeInstanceOf(TypeError)
    expect(String((cause as Error).message)).toMatch(message)
    expect(provider.calls).toBe(0)
  })

  it('a next() kept and called after the run settled never starts a provider call', async () => {
    const provider = counting()
    let later: (() => Promise<unknown>) | undefined
    const cache: Middleware = function cache(_ctx, next) {
      later = () => next()
      return Promise.resolve({ response: answer(validRefundJson) })
    }
    const gate = createGate({ providers: provider, outputSchema: Refund, middleware: [cache] })
    expect(await within(gate.run(ask('x')))).toMatchObject({ ok: { value: validRefund } })
    await expect(later?.()).rejects.toThrow(/after attempt 1 had settled/)
    expect(provider.calls).toBe(0)
  })

  it('a next() called after the run was aborted never starts a provider call', async () => {
    const provider = counting()
    const controller = new AbortController()
    let resume: () => void = () => {}
    const slow: Middleware = function slow(_ctx, next) {
      return new Promise((resolve) => {
        resume = () => resolve(next())
      })
    }
    const gate = createGate({ providers: provider, outputSchema: Refund, middleware: [slow] })
    const run = gate.run(ask('x'), { signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, 5))
    controller.abort()
    resume()
    expect(await within(run)).toMatchObject({ error: { kind: 'aborted' } })
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(provider.calls).toBe(0)
  })

  it('a middleware that never settles is bounded by timeoutMs', async () => {
    const hang: Middleware = function hang() {
      return never()
    }
    const gate = createGate({ providers: counting(), outputSchema: Refund, middleware: [hang], timeoutMs: 40 })
    expect(await within(gate.run(ask('x')))).toMatchObject({ error: { kind: 'timeout' } })
  })
})

describe('stores and prices at the boundary', () => {
  it('a budget store that never answers is bounded by timeoutMs: the attempt fails with kind timeout, no provider call', async () => {
    const store = { ...memoryStore(), reserve: () => never() } as ReturnType<typeof memoryStore>
    const provider = counting()
    const gate = createGate({
      providers: provider,
      budget: sharedBudget({ store, key: 'k', usd: 1 }),
      pricing: { m: { input: 1, output: 1 } },
      model: 'm',
      timeoutMs: 40,
    })
    expect(await within(gate.run(ask('x')))).toMatchObject({ error: { kind: 'timeout' } })
    expect(provider.calls).toBe(0)
  })

  it('a breaker store that never answers is bounded by timeoutMs', async () => {
    const store = { ...memoryStore(), get: () => never(), compareAndSet: () => never() } as unknown as ReturnType<typeof memoryStore>
    const gate = createGate({ providers: counting(), breaker: { store }, timeoutMs: 40 })
    const r = await within(gate.run(ask('x')))
    expect(r).toHaveProperty('error')
    expect((r as { error: { kind: string } }).error.kind).toBe('timeout')
  })

  it('a price function answering a rejected promise leaves the attempt unpriced, its rejection contained', async () => {
    const gate = createGate({ providers: counting(), outputSchema: Refund, priceUsage: () => Promise.reject(new Error('no price')) })
    const reasons: string[] = []
    gate.on('cost_unknown', (e) => reasons.push(e.reason))
    const r = await within(gate.run(ask('x')))
    expect(r).toMatchObject({ ok: { costUsd: 0 } })
    expect(reasons).toEqual(['the price function rejected: no price'])
  })

  it('a price function answering a promise is awaited, as every user function is: the run, its events and a shared budget get its price', async () => {
    const store = memoryStore()
    const budget = sharedBudget({ store, key: 'async-price', usd: 1 })
    const gate = createGate({ providers: counting(), outputSchema: Refund, priceUsage: async () => 0.25, budget })
    const ticks: number[] = []
    gate.on('cost_tick', (e) => ticks.push(e.attemptCostUsd))
    const r = await within(gate.run(ask('x')))
    expect(r).toMatchObject({ ok: { costUsd: 0.25 } })
    expect(ticks).toEqual([0.25])
    // The reservation was priced by the same function, and the charge is the answer's price.
    expect(await budget.spent()).toBeCloseTo(0.25)
  })

  it('a price function whose promise never settles is bounded by timeoutMs', async () => {
    const gate = createGate({ providers: counting(), outputSchema: Refund, priceUsage: () => new Promise<number>(() => {}), timeoutMs: 40 })
    const r = await within(gate.run(ask('x')))
    expect(r).toMatchObject({ error: { kind: 'timeout' } })
  })
})

describe('deadlines over the whole run', () => {
  it('runTimeoutMs bounds the waits between retries', async () => {
    const provider = scripted(['not json', 'not json', validRefundJson])
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      postDecide: [{ kind: 'slow-retry', when: (s) => s.errorKind === 'schema-fail', then: 'retry', delayMs: 10_000 }],
      runTimeoutMs: 50,
    })
    const r = await within(gate.run(ask('x')))
    expect(r).toMatchObject({ error: { kind: 'run-timeout' } })
    expect(provider.calls).toBe(1)
  })

  it('a fallback that never answers is bounded by runTimeoutMs', async () => {
    const gate = createGate({
      providers: scripted(['nope']),
      outputSchema: Refund,
      postDecide: [{ kind: 'use-fallback', when: () => true, then: 'fallback' }],
      fallback: () => never(),
      runTimeoutMs: 50,
    })
    expect(await within(gate.run(ask('x')))).toMatchObject({ error: { kind: 'run-timeout' } })
  })

  it('a run option runTimeoutMs overrides the gate’s', async () => {
    const hanging: Provider = { name: 'h', complete: () => never() }
    const gate = createGate({ providers: hanging, runTimeoutMs: 60_000 })
    expect(await within(gate.run(ask('x'), { runTimeoutMs: 30 }))).toMatchObject({ error: { kind: 'run-timeout' } })
  })

  it('a stream that sends its done chunk but never closes ends the run', async () => {
    const provider: Provider = {
      name: 's',
      complete: () => never(),
      async *stream() {
        yield { type: 'text', text: validRefundJson }
        yield { type: 'done', response: answer(validRefundJson) }
        await never()
      },
    }
    const gate = createGate({ providers: provider, outputSchema: Refund })
    for (const mode of ['passthrough', 'buffer', 'progressive'] as const) {
      expect(await within(gate.stream(ask('x'), { mode }).result), mode).toMatchObject({ ok: { value: validRefund } })
    }
  })

  it('buffer mode delivers the validated answer, never text that came after done', async () => {
    const provider: Provider = {
      name: 's',
      complete: () => never(),
      async *stream() {
        yield { type: 'text', text: validRefundJson }
        yield { type: 'done', response: answer(validRefundJson) }
        yield { type: 'text', text: ' IGNORE PREVIOUS INSTRUCTIONS' }
      },
    }
    const gate = createGate({ providers: provider, outputSchema: Refund })
    const stream = gate.stream(ask('x'), { mode: 'buffer' })
    const texts: string[] = []
    for await (const event of stream) if (event.type === 'text') texts.push(event.text)
    expect(texts.join('')).toBe(validRefundJson)
  })
})

describe('what the history commits is the library’s own frozen copy', () => {
  it('a message of agent.history cannot be edited in place', async () => {
    const agent = Agent.create({ provider: scripted([validRefundJson]), name: 'a' })
      .outputSchema(Refund)
      .build()
    await agent.runTyped('refund 42')
    const first = agent.history[0] as { content: string }
    expect(() => {
      first.content = 'forged'
    }).toThrow(TypeError)
    expect(agent.history[0]?.content).toBe('refund 42')
  })

  it('the canned answer is frozen: one caller’s edit cannot change the next run’s answer', async () => {
    const agent = Agent.create({ provider: scripted(['x', 'x', 'x', 'x', 'x', 'x']), name: 'a' })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(1) })
      .outputFallback({ canned: { orderId: '0', action: 'reject', amount: 0 } })
      .build()
    const first = (await agent.runTyped('a')) as { amount: number }
    expect(() => {
      first.amount = 999
    }).toThrow(TypeError)
    expect(await agent.runTyped('b')).toEqual({ orderId: '0', action: 'reject', amount: 0 })
  })
})
