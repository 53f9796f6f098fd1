import { describe, expect, it, vi } from 'vitest'
import {
  createGate,
  isReliabilityFailFastError,
  ProviderError,
  retryTransient,
  strictOutputRules,
  type GateEventMap,
  type ReliabilityRule,
} from '../../src/index.ts'
import { ZERO_USAGE } from '../../src/model/usage.ts'
import { scripted } from '../../src/providers/index.ts'
import { abortThenHang } from '../support/abort-then-hang.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

const failOver: ReliabilityRule = { when: (s) => s.errorKind !== 'ok' && s.canSwitchProvider, then: 'retry-other', kind: 'failover' }

describe('PreCheck', () => {
  it('never calls the provider when a PreCheck rule fails fast', async () => {
    const provider = scripted([validRefundJson])
    const gate = createGate({ providers: provider, preCheck: [{ when: () => true, then: 'fail-fast', kind: 'kill-switch' }] })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'kill-switch', phase: 'pre-check', attempts: [] })
    expect(provider.calls).toBe(0)
  })

  it('runs before every attempt, so it can stop a retry', async () => {
    const provider = scripted(['nope', 'nope', validRefundJson])
    const attemptsSeen: number[] = []
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      preCheck: [
        {
          when: (s) => {
            attemptsSeen.push(s.attempt)
            return s.attempt >= 1
          },
          then: 'fail-fast',
          kind: 'one-attempt-only',
        },
      ],
      postDecide: strictOutputRules(5),
    })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'one-attempt-only' })
    expect(attemptsSeen).toEqual([0, 1])
    expect(provider.calls).toBe(1)
  })

  it('continues when a matching PreCheck rule decides anything but fail-fast', async () => {
    const provider = scripted(['hi'])
    const gate = createGate({ providers: provider, preCheck: [{ when: () => true, then: 'retry', kind: 'noop' }] })
    await expect(gate.run(ask('x'))).resolves.toMatchObject({ value: 'hi' })
  })
})

describe('retry-other', () => {
  it('really calls the next provider, with its own model, and the events say from which to which', async () => {
    const primary = scripted([new ProviderError('overloaded', { kind: 'http-5xx', status: 529 })], { name: 'primary' })
    const backup = scripted([validRefundJson], { name: 'backup' })
    const gate = createGate({
      providers: [
        { provider: primary, model: 'big-model' },
        { provider: backup, model: 'small-model' },
      ],
      outputSchema: Refund,
      postDecide: [failOver],
    })
    const retries: GateEventMap['retry'][] = []
    gate.on('retry', (e) => retries.push(e))
    const result = await gate.run(ask('x'))
    expect(primary.calls).toBe(1)
    expect(backup.calls).toBe(1)
    expect(primary.requests[0]?.model).toBe('big-model')
    expect(backup.requests[0]?.model).toBe('small-model')
    expect(result.provider).toBe('backup')
    expect(retries).toEqual([expect.objectContaining({ decision: 'retry-other', fromProvider: 'primary', toProvider: 'backup' })])
    expect(result.attempts.map((a) => [a.provider, a.status])).toEqual([
      ['primary', 'http_error'],
      ['backup', 'success'],
    ])
  })

  it('fails with no-more-providers past the last provider', async () => {
    const only = scripted([new ProviderError('down', { kind: 'http-5xx', status: 503 })])
    const gate = createGate({ providers: [only], postDecide: [{ when: (s) => s.errorKind !== 'ok', then: 'retry-other', kind: 'failover' }] })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'no-more-providers' })
  })
})

describe('fallback decision', () => {
  it('calls the configured fallback and validates its answer', async () => {
    const gate = createGate({
      providers: scripted(['nope']),
      outputSchema: Refund,
      postDecide: [{ when: (s) => s.validationError !== undefined, then: 'fallback', kind: 'use-fallback' }],
      fallback: () => validRefundJson,
    })
    const result = await gate.run(ask('x'))
    expect(result.fromFallback).toBe(true)
    expect(result.provider).toBe('fallback')
    expect(result.value).toEqual(JSON.parse(validRefundJson))
  })

  it('fails fast when the fallback answer is invalid too', async () => {
    const gate = createGate({
      providers: scripted(['nope']),
      outputSchema: Refund,
      postDecide: [{ when: (s) => s.validationError !== undefined, then: 'fallback', kind: 'use-fallback' }],
      fallback: () => '{"still": "wrong"}',
    })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'fallback-invalid' })
  })

  const toFallback: ReliabilityRule = { when: () => true, then: 'fallback', kind: 'use-fallback', failuresOnly: true }
  const answer = (content: string, stopReason: 'max_tokens' | 'content_filter') => ({ content, toolCalls: [], usage: ZERO_USAGE, stopReason })

  it('refuses a fallback answer cut by the token limit, even without a schema', async () => {
    const gate = createGate({
      providers: scripted([new ProviderError('down', { kind: 'http-5xx' })]),
      postDecide: [toFallback],
      fallback: () => answer('Sure, here is th', 'max_tokens'),
    })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'fallback-invalid', reason: expect.stringContaining('cut by the token limit') })
  })

  it('refuses a fallback answer cut by the token limit with a schema, with the validation failure', async () => {
    const gate = createGate({
      providers: scripted(['nope']),
      outputSchema: Refund,
      postDecide: [toFallback],
      fallback: () => answer(validRefundJson, 'max_tokens'),
    })
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'fallback-invalid', validationError: { rawOutput: validRefundJson } })
  })

  it('refuses a fallback answer that is a refusal', async () => {
    const gate = createGate({
      providers: scripted([new ProviderError('down', { kind: 'http-5xx' })]),
      postDecide: [toFallback],
      fallback: () => answer("I can't help with that.", 'content_filter'),
    })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'fallback-invalid', reason: expect.stringContaining('refused') })
  })

  it('fails fast with no-fallback when none is configured', async () => {
    const gate = createGate({ providers: scripted(['nope']), outputSchema: Refund, postDecide: [{ when: () => true, then: 'fallback', kind: 'fb' }] })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'no-fallback' })
  })
})

describe('rules that misbehave', () => {
  it('treats a throwing when as not matching and reports it', async () => {
    const gate = createGate({
      providers: scripted(['nope', validRefundJson]),
      outputSchema: Refund,
      postDecide: [
        {
          when: () => {
            throw new Error('bad rule')
          },
          then: 'fail-fast',
          kind: 'broken',
        },
        ...strictOutputRules(3),
      ],
    })
    const errors: string[] = []
    gate.on('rule_error', (e) => errors.push(`${e.kind}/${e.where}`))
    const result = await gate.run(ask('x'))
    expect(result.attempts).toHaveLength(2)
    expect(errors).toEqual(['broken/when', 'broken/when'])
  })
})

describe('abort and timeout', () => {
  it('settles with kind aborted when the signal aborts during a provider call that ignores it', async () => {
    const controller = new AbortController()
    const hanging = { name: 'hanging', complete: () => new Promise<never>(() => {}) }
    const gate = createGate({ providers: hanging, postDecide: [{ when: () => true, then: 'retry', kind: 'always' }] })
    const run = gate.run(ask('x'), { signal: controller.signal })
    controller.abort()
    await expect(run).rejects.toMatchObject({ kind: 'aborted' })
  })

  it('does not start when the signal is already aborted', async () => {
    const provider = scripted(['hi'])
    const gate = createGate({ providers: provider })
    await expect(gate.run(ask('x'), { signal: AbortSignal.abort() })).rejects.toMatchObject({ kind: 'aborted' })
    expect(provider.calls).toBe(0)
  })

  it('classifies a provider that exceeds timeoutMs as timeout, in virtual time', async () => {
    vi.useFakeTimers()
    try {
      const slow = { name: 'slow', complete: () => new Promise<never>(() => {}) }
      const gate = createGate({ providers: slow, timeoutMs: 1000 })
      const run = gate.run(ask('x')).catch((e: unknown) => e)
      await vi.advanceTimersByTimeAsync(1000)
      expect(await run).toMatchObject({ kind: 'timeout' })
    } finally {
      vi.useRealTimers()
    }
  })

  it('waits a rule delay before retrying and aborts the wait with the signal', async () => {
    vi.useFakeTimers()
    try {
      const provider = scripted(['nope', validRefundJson])
      const gate = createGate({
        providers: provider,
        outputSchema: Refund,
        postDecide: [{ when: (s) => s.validationError !== undefined, then: 'retry', kind: 'slow-retry', delayMs: 5000 }],
      })
      const controller = new AbortController()
      const run = gate.run(ask('x'), { signal: controller.signal }).catch((e: unknown) => e)
      await vi.advanceTimersByTimeAsync(1000)
      expect(provider.calls).toBe(1)
      controller.abort()
      expect(await run).toMatchObject({ kind: 'aborted' })
      expect(provider.calls).toBe(1)
    } finally {
      vi.useRealTimers()
    }
  })

  it('never retries an aborted call, whatever the rules decide, and never fails over', async () => {
    const controller = new AbortController()
    const primary = scripted([abortThenHang(controller)], { name: 'primary' })
    const backup = scripted([validRefundJson], { name: 'backup' })
    const gate = createGate({
      providers: [primary, backup],
      outputSchema: Refund,
      postDecide: [retryTransient({ backoff: () => 0 }), { when: () => true, then: 'retry-other', kind: 'failover-anything' }],
    })
    const error = await gate.run(ask('x'), { signal: controller.signal }).catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'aborted' })
    expect(isReliabilityFailFastError(error) && error.attempts.map((a) => [a.provider, a.decision])).toEqual([['primary', 'fail-fast']])
    expect(backup.calls).toBe(0)
  })
})

describe('usage', () => {
  it('adds the usage of every attempt, failed ones included, and prices each attempt', async () => {
    const provider = scripted([
      { content: 'nope', usage: { inputTokens: 10, outputTokens: 5 } },
      { content: validRefundJson, usage: { inputTokens: 20, outputTokens: 7 } },
    ])
    const gate = createGate({
      providers: provider,
      outputSchema: Refund,
      postDecide: strictOutputRules(3),
      priceUsage: (u) => u.inputTokens * 0.001 + u.outputTokens * 0.002,
    })
    const result = await gate.run(ask('x'))
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 12 })
    expect(result.costUsd).toBeCloseTo(0.03 + 0.024, 10)
    expect(result.attempts.map((a) => a.costUsd)).toEqual([0.02, expect.closeTo(0.034, 10)])
  })
})
