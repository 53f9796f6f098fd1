import { describe, expect, it, vi } from 'vitest'
import {
  Agent,
  createGate,
  failoverRule,
  isReliabilityFailFastError,
  memoryStore,
  ProviderError,
  retryTransient,
  sharedBudget,
  strictOutputRules,
  type Middleware,
  type ModelResponse,
} from '../../src/index.ts'
import type { AttemptContext } from '../../src/policies/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefund, validRefundJson } from '../support/schemas.ts'

const answer = (content: string): ModelResponse => ({ content, toolCalls: [], usage: { inputTokens: 5, outputTokens: 5 }, stopReason: 'end' })
const badAmount = '{"orderId":"42","action":"refund","amount":"USD 50"}'

/** A link that records the context of every attempt it sees and passes on. */
function spy(): { link: Middleware; seen: AttemptContext[] } {
  const seen: AttemptContext[] = []
  return {
    seen,
    link: function spyLink(ctx, next) {
      seen.push(ctx)
      return next()
    },
  }
}

describe('gate middleware', () => {
  it('sees every attempt with its number, run id, provider and the request about to be sent', async () => {
    const { link, seen } = spy()
    const provider = scripted([badAmount, validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3), middleware: [link] })
    const result = await gate.run(ask('refund #42'), { metadata: { tenant: 'acme' } })
    expect(result.value).toEqual(validRefund)
    expect(seen.map((c) => c.attempt)).toEqual([1, 2])
    expect(seen.every((c) => c.runId === result.runId && c.provider === 'scripted' && c.providerIdx === 0)).toBe(true)
    expect(seen.map((c) => c.metadata)).toEqual([{ tenant: 'acme' }, { tenant: 'acme' }])
    // The retry's request carries the ephemeral tail; the base request never does.
    expect(seen[0]?.request.messages).toHaveLength(1)
    expect(seen[1]?.request.messages.map((m) => [m.role, m.ephemeral === true])).toEqual([
      ['user', false],
      ['assistant', true],
      ['user', true],
    ])
    expect(seen[1]?.baseRequest.messages).toHaveLength(1)
    expect(seen[1]?.baseRequest.messages.some((m) => m.ephemeral === true)).toBe(false)
    expect(provider.requests[1]?.messages).toHaveLength(3)
  })

  it('runs links outermost first and hands each later link the request an earlier one passed on', async () => {
    const order: string[] = []
    const tag =
      (name: string): Middleware =>
      (ctx, next) => {
        order.push(`${name}:${ctx.request.messages[0]?.content}`)
        return next({ ...ctx.request, messages: [{ role: 'user', content: `${ctx.request.messages[0]?.content}+${name}` }] })
      }
    const provider = scripted([validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, middleware: [tag('a'), tag('b')] })
    await gate.run(ask('q'))
    expect(order).toEqual(['a:q', 'b:q+a'])
    expect(provider.requests[0]?.messages[0]?.content).toBe('q+a+b')
  })

  it('validates a short-circuited response like a provider answer and retries with feedback', async () => {
    const provider = scripted([validRefundJson])
    const cached: Middleware = async function cache(ctx, next) {
      return ctx.attempt === 1 ? { response: answer(badAmount) } : next()
    }
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3), middleware: [cached] })
    const failed = vi.fn()
    gate.on('validation_failed', failed)
    const result = await gate.run(ask('x'))
    expect(result.value).toEqual(validRefund)
    expect(failed).toHaveBeenCalledTimes(1)
    expect(failed.mock.calls[0]?.[0]).toMatchObject({ attempt: 1, path: 'amount', rawOutput: badAmount })
    expect(provider.calls).toBe(1)
    expect(result.attempts.map((a) => a.status)).toEqual(['schema_error', 'success'])
    // Its usage is metered like any answer's.
    expect(result.usage.inputTokens).toBeGreaterThanOrEqual(5)
  })

  it('fails the attempt with the kind of a ProviderError it throws, so rules act on it', async () => {
    const primary = scripted([validRefundJson], { name: 'primary' })
    const backup = scripted([validRefundJson], { name: 'backup' })
    const deny: Middleware = async function tenantQuota(ctx, next) {
      if (ctx.provider === 'primary') throw new ProviderError('tenant quota reached', { kind: 'rate-limit', provider: ctx.provider })
      return next()
    }
    const gate = createGate({ providers: [primary, backup], outputSchema: Refund, postDecide: [failoverRule()], middleware: [deny] })
    const result = await gate.run(ask('x'))
    expect(result.provider).toBe('backup')
    expect(primary.calls).toBe(0)
    expect(result.attempts.map((a) => [a.provider, a.errorKind])).toEqual([
      ['primary', 'rate-limit'],
      ['backup', 'ok'],
    ])
  })

  it('bills an attempt a link fails after the provider answered, and the shared budget charges it', async () => {
    const provider = scripted([answer('{"orderId":"42","action":"refund","amount":9999}'), answer(validRefundJson)])
    const moderate: Middleware = async function moderate(_ctx, next) {
      const result = await next()
      if (result.response.content.includes('9999')) throw new ProviderError('amount refused by moderation', { kind: 'refusal' })
      return result
    }
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 1, reserveUsd: 0.1 })
    const pricing = { m: { input: 1000, output: 1000 } }
    const gate = createGate({
      providers: provider,
      model: 'm',
      pricing,
      budget,
      outputSchema: Refund,
      middleware: [moderate],
      postDecide: [{ when: (s) => s.errorKind === 'refusal', then: 'retry', kind: 'moderated' }],
    })
    const result = await gate.run(ask('x'))
    expect(result.attempts.map((a) => [a.errorKind, a.usage.inputTokens + a.usage.outputTokens, a.costUsd])).toEqual([
      ['refusal', 10, 0.01],
      ['ok', 10, 0.01],
    ])
    expect(result.usage).toMatchObject({ inputTokens: 10, outputTokens: 10 })
    expect(result.costUsd).toBeCloseTo(0.02, 12)
    expect(await budget.spent()).toBeCloseTo(0.02, 12)
  })

  it('turns a link that throws synchronously or answers nothing into a typed failure', async () => {
    const throwing: Middleware = () => {
      throw new TypeError('bug in my link')
    }
    const gate = createGate({ providers: scripted([validRefundJson]), middleware: [throwing] })
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'unknown', reason: expect.stringContaining('bug in my link') })

    const empty = (async () => undefined) as unknown as Middleware
    const gate2 = createGate({ providers: scripted([validRefundJson]), middleware: [empty] })
    await expect(gate2.run(ask('x'))).rejects.toMatchObject({ kind: 'malformed-response', reason: expect.stringContaining('no response') })
  })

  it('refuses a second next() in one attempt', async () => {
    const provider = scripted([validRefundJson, validRefundJson])
    const twice: Middleware = async function twice(_ctx, next) {
      await next()
      return next()
    }
    const gate = createGate({ providers: provider, middleware: [twice] })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'unknown', reason: expect.stringContaining('twice called next() more than once') })
    expect(provider.calls).toBe(1)
  })

  it('runs after the built-in policies: an open breaker never reaches the link', async () => {
    const { link, seen } = spy()
    const failing = scripted([new ProviderError('down', { kind: 'http-5xx', status: 503 }), new ProviderError('down', { kind: 'http-5xx', status: 503 })])
    const gate = createGate({ providers: failing, breaker: { failureThreshold: 1, cooldownMs: 60_000 }, middleware: [link] })
    await expect(gate.run(ask('1'))).rejects.toMatchObject({ kind: 'http-5xx' })
    await expect(gate.run(ask('2'))).rejects.toMatchObject({ kind: 'circuit-open' })
    expect(seen).toHaveLength(1)
  })

  it('is inside the deadline: a link that never answers times out and the run settles', async () => {
    vi.useFakeTimers()
    try {
      const hang: Middleware = () => new Promise(() => undefined)
      const gate = createGate({ providers: scripted([validRefundJson]), timeoutMs: 1000, postDecide: [retryTransient({ maxRetries: 0 })], middleware: [hang] })
      const pending = gate.run(ask('x')).catch((e: unknown) => e)
      await vi.advanceTimersByTimeAsync(1000)
      await expect(pending).resolves.toMatchObject({ kind: 'timeout' })
    } finally {
      vi.useRealTimers()
    }
  })

  it('never outlives the run signal, even when a link ignores it', async () => {
    const hang: Middleware = () => new Promise(() => undefined)
    const gate = createGate({ providers: scripted([validRefundJson]), middleware: [hang] })
    const controller = new AbortController()
    const pending = gate.run(ask('x'), { signal: controller.signal })
    controller.abort(new Error('user left'))
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' })
  })
})

describe('Agent.use', () => {
  it('redacts the wire request while the persisted history keeps what the user said, and no tail', async () => {
    const provider = scripted([badAmount, validRefundJson])
    const redact: Middleware = function redact(ctx, next) {
      const messages = ctx.request.messages.map((m) => ({ ...m, content: m.content.replace(/[\w.]+@[\w.]+/g, '[email]') }))
      return next({ ...ctx.request, messages })
    }
    const agent = Agent.create({ provider })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .use(redact)
      .build()
    const result = await agent.runDetailed('refund #42 for ana@example.com')
    expect(result.value).toEqual(validRefund)
    for (const request of provider.requests) expect(JSON.stringify(request.messages)).not.toContain('ana@example.com')
    expect(provider.requests[0]?.messages[0]?.content).toBe('refund #42 for [email]')
    expect(agent.history).toEqual([
      { role: 'user', content: 'refund #42 for ana@example.com' },
      { role: 'assistant', content: validRefundJson },
    ])
  })

  it('keeps one run id across every model call of an agent run', async () => {
    const { link, seen } = spy()
    const provider = scripted([badAmount, validRefundJson])
    const agent = Agent.create({ provider })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .use(link)
      .build()
    const result = await agent.runDetailed('x', { runId: 'req-7' })
    expect(result.runId).toBe('req-7')
    expect(seen.map((c) => c.runId)).toEqual(['req-7', 'req-7'])
  })

  it('rejects a link that is not a function at build time', () => {
    expect(() => Agent.create({ provider: scripted([]) }).use(42 as unknown as Middleware)).toThrow(TypeError)
    expect(() => createGate({ providers: scripted([]), middleware: [null as unknown as Middleware] })).toThrow(TypeError)
  })
})
