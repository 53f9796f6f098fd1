import { describe, expect, it, vi } from 'vitest'
import {
  circuitBreaker,
  createGate,
  failoverRule,
  memoryStore,
  ProviderError,
  strictOutputRules,
  type GateEventMap,
  type ReliabilityRule,
} from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

const clock = () => {
  let t = 0
  return { now: () => t, advance: (ms: number) => (t += ms) }
}
const down = () => new ProviderError('overloaded', { kind: 'http-5xx', status: 529 })
const retryAnything: ReliabilityRule = { when: (s) => s.errorKind !== 'ok', then: 'retry', kind: 'retry-anything' }

describe('circuit breaker in the gate', () => {
  it('opens after the threshold, then fails over without calling the open provider, half-opens after the cooldown and closes after a success', async () => {
    const c = clock()
    const primary = scripted([down(), down(), validRefundJson], { name: 'primary' })
    const backup = scripted([validRefundJson, validRefundJson, validRefundJson], { name: 'backup' })
    const gate = createGate({
      providers: [primary, backup],
      outputSchema: Refund,
      breaker: { failureThreshold: 2, cooldownMs: 1000, now: c.now },
      postDecide: [failoverRule()],
    })
    const states: GateEventMap['breaker_state'][] = []
    gate.on('breaker_state', (e) => states.push(e))

    // Two runs, each failing over after a real failure of primary: the second one opens its breaker.
    await gate.run(ask('1'))
    const second = await gate.run(ask('2'))
    expect(second.provider).toBe('backup')
    expect(states).toEqual([{ runId: expect.any(String), provider: 'primary', from: 'closed', to: 'open', failures: 2 }])

    // Open: primary is not called, the attempt ends with circuit-open and the rule fails over.
    const third = await gate.run(ask('3'))
    expect(primary.calls).toBe(2)
    expect(third.provider).toBe('backup')
    expect(third.attempts.map((a) => [a.provider, a.status, a.usage])).toEqual([
      ['primary', 'circuit_open', { inputTokens: 0, outputTokens: 0 }],
      ['backup', 'success', expect.anything()],
    ])

    // After the cooldown a probe reaches primary; its success closes the breaker.
    c.advance(1000)
    const fourth = await gate.run(ask('4'))
    expect(primary.calls).toBe(3)
    expect(fourth.provider).toBe('primary')
    expect(states.map((s) => `${s.from}->${s.to}`)).toEqual(['closed->open', 'open->half-open', 'half-open->closed'])
  })

  it('fails fast with kind circuit-open when no rule handles an open breaker', async () => {
    const provider = scripted([down()], { name: 'p' })
    const gate = createGate({ providers: provider, breaker: { failureThreshold: 1 } })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'http-5xx' })
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect(error).toMatchObject({
      kind: 'circuit-open',
      usage: { inputTokens: 0, outputTokens: 0 },
      attempts: [{ status: 'circuit_open', errorKind: 'circuit-open' }],
    })
    expect(provider.calls).toBe(1)
  })

  it('never spins: a plain retry of an open breaker fails fast after one attempt', async () => {
    const provider = scripted([down()], { name: 'p' })
    const gate = createGate({ providers: provider, breaker: { failureThreshold: 1, cooldownMs: 60_000 }, postDecide: [retryAnything], maxAttempts: 10 })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'circuit-open' })
    const attempts: number[] = []
    gate.on('attempt_start', (e) => attempts.push(e.attempt))
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'circuit-open', attempts: [expect.objectContaining({ decision: 'fail-fast' })] })
    expect(attempts).toEqual([1])
    expect(provider.calls).toBe(1)
  })

  it('lets a rule that waits out the cooldown retry the same provider, in virtual time', async () => {
    vi.useFakeTimers()
    try {
      const provider = scripted([down(), validRefundJson], { name: 'p' })
      const waitOut: ReliabilityRule = {
        when: (s) => s.errorKind === 'circuit-open' || s.errorKind === 'http-5xx',
        then: 'retry',
        kind: 'wait',
        delayMs: (s) => s.retryAfterMs ?? 0,
      }
      const gate = createGate({ providers: provider, outputSchema: Refund, breaker: { failureThreshold: 1, cooldownMs: 5000 }, postDecide: [waitOut] })
      const run = gate.run(ask('x'))
      await vi.advanceTimersByTimeAsync(4999)
      expect(provider.calls).toBe(1)
      await vi.advanceTimersByTimeAsync(1)
      const result = await run
      expect(provider.calls).toBe(2)
      expect(result.attempts.map((a) => a.status)).toEqual(['http_error', 'circuit_open', 'success'])
    } finally {
      vi.useRealTimers()
    }
  })

  it('does not count aborted calls', async () => {
    const hanging = { name: 'hanging', complete: () => new Promise<never>(() => {}) }
    const breaker = circuitBreaker({ failureThreshold: 1 })
    const gate = createGate({ providers: hanging, breaker })
    for (let i = 0; i < 3; i++) {
      const controller = new AbortController()
      const run = gate.run(ask('x'), { signal: controller.signal })
      controller.abort()
      await expect(run).rejects.toMatchObject({ kind: 'aborted' })
    }
    expect(await breaker.state('hanging')).toMatchObject({ state: 'closed', failures: 0 })
  })

  it('does not count answers that fail validation: the provider is up', async () => {
    const provider = scripted(['nope', '{"orderId": 1}', '{"orderId": "1", "action": "maybe", "amount": 1}'], { name: 'p' })
    const breaker = circuitBreaker({ failureThreshold: 1 })
    const gate = createGate({ providers: provider, outputSchema: Refund, breaker, postDecide: strictOutputRules(3) })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'schema-retry-exhausted' })
    expect(provider.calls).toBe(3)
    expect((await breaker.state('p')).state).toBe('closed')
  })

  it('counts timeouts of the gate itself', async () => {
    vi.useFakeTimers()
    try {
      const slow = { name: 'slow', complete: () => new Promise<never>(() => {}) }
      const breaker = circuitBreaker({ failureThreshold: 1 })
      const gate = createGate({ providers: slow, timeoutMs: 100, breaker })
      const run = gate.run(ask('x')).catch((e: unknown) => e)
      await vi.advanceTimersByTimeAsync(100)
      expect(await run).toMatchObject({ kind: 'timeout' })
      expect((await breaker.state('slow')).state).toBe('open')
    } finally {
      vi.useRealTimers()
    }
  })

  it('shares one breaker between gates given the same instance', async () => {
    const breaker = circuitBreaker({ failureThreshold: 1 })
    const a = createGate({ providers: scripted([down()], { name: 'shared' }), breaker })
    const other = scripted(['hi'], { name: 'shared' })
    const b = createGate({ providers: other, breaker })
    await expect(a.run(ask('x'))).rejects.toMatchObject({ kind: 'http-5xx' })
    await expect(b.run(ask('x'))).rejects.toMatchObject({ kind: 'circuit-open' })
    expect(other.calls).toBe(0)
  })

  it('lets calls through when the breaker store fails', async () => {
    const store = { ...memoryStore(), get: () => Promise.reject(new Error('redis down')) }
    const provider = scripted(['hi'])
    const gate = createGate({ providers: provider, breaker: { store } })
    await expect(gate.run(ask('x'))).resolves.toMatchObject({ value: 'hi' })
    expect(provider.calls).toBe(1)
  })

  it('does nothing with breaker: false', async () => {
    const steps: ScriptedStep[] = Array.from({ length: 8 }, down)
    const provider = scripted(steps)
    const gate = createGate({ providers: provider, breaker: false, postDecide: [retryAnything], maxAttempts: 8 })
    const states: unknown[] = []
    gate.on('breaker_state', (e) => states.push(e))
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'max-attempts' })
    expect(provider.calls).toBe(8)
    expect(states).toEqual([])
  })
})
