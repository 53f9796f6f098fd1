import { describe, expect, it } from 'vitest'
import {
  circuitBreaker,
  createGate,
  memoryStore,
  type GateConfig,
  type ModelResponse,
  type Provider,
  ReliabilityFailFastError,
  strictOutputRules,
} from '../../src/index.ts'
import { heldProvider } from '../support/held-provider.ts'
import { expectNoUnhandledRejections } from '../support/no-unhandled-rejections.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

// The chain's outermost run of stages settles an attempt itself (one promise step fewer than a
// reaction of the gate's on the chain). These try to make it settle twice, inside a caller's
// abort(), or not at all: with a deadline (a run that may stop), with policies that enter (a run
// that may not stop but settles), and with stages that only leave (settled by the gate's reaction).

expectNoUnhandledRejections()

const never: Provider = { name: 'never', complete: () => new Promise<ModelResponse>(() => {}) }
const answer = (content: string): ModelResponse => ({ content, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' })

const CONFIGS: readonly (readonly [string, Partial<GateConfig<unknown>>])[] = [
  ['a deadline', { timeoutMs: 60_000 }],
  ['a breaker and no deadline', { breaker: circuitBreaker({ store: memoryStore(), failureThreshold: 5, cooldownMs: 1_000 }) }],
  ['stages that only leave', {}],
]

describe('an attempt settled by its chain', () => {
  it.each(CONFIGS)('with %s: the run’s abort settles it once, in a job of its own, never inside the caller’s abort()', async (_name, config) => {
    const gate = createGate({ providers: [never], outputSchema: Refund, ...config })
    let ends = 0
    let runEnds = 0
    gate.on('attempt_end', () => ends++)
    gate.on('run_end', () => runEnds++)
    const controller = new AbortController()
    const pending = gate.run(ask('x'), { signal: controller.signal })
    await new Promise((resolve) => setImmediate(resolve))
    controller.abort(new Error('caller gave up'))
    // The listeners of the run's end are not called from inside abort().
    expect([ends, runEnds]).toEqual([0, 0])
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' })
    expect([ends, runEnds]).toEqual([1, 1])
  })

  it.each(CONFIGS)('with %s: an answer that comes after the attempt was settled is dropped, never a second outcome', async (_name, config) => {
    const held = heldProvider(validRefundJson)
    const gate = createGate({ providers: [held.provider], outputSchema: Refund, ...config })
    const ends: string[] = []
    gate.on('attempt_end', (e) => ends.push(e.errorKind))
    const controller = new AbortController()
    const pending = gate.run(ask('x'), { signal: controller.signal })
    await new Promise((resolve) => setImmediate(resolve))
    controller.abort()
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' })
    held.release()
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(ends).toEqual(['aborted'])
  })

  it.each(CONFIGS)(
    'with %s: a late answer is never checked into the outcome the loop took (no validation_failed, the record stands)',
    async (_name, config) => {
      const held = heldProvider('{"orderId": 42}')
      const gate = createGate({ providers: [held.provider], outputSchema: Refund, ...config })
      const failed: unknown[] = []
      gate.on('validation_failed', (e) => failed.push(e))
      const controller = new AbortController()
      const pending = gate.run(ask('x'), { signal: controller.signal })
      await new Promise((resolve) => setImmediate(resolve))
      controller.abort()
      const error = (await pending.catch((e: unknown) => e)) as ReliabilityFailFastError
      const record = { ...error.attempts[0] }
      held.release()
      await new Promise((resolve) => setTimeout(resolve, 5))
      expect(failed).toEqual([])
      expect(error.attempts).toHaveLength(1)
      expect(error.attempts[0]).toEqual(record)
      expect(record).toMatchObject({ errorKind: 'aborted', validationStage: undefined, rawOutput: undefined })
    },
  )

  it('with a deadline that passes: the attempt times out once, and a late answer starts nothing', async () => {
    const held = heldProvider(validRefundJson)
    const gate = createGate({ providers: [held.provider], outputSchema: Refund, timeoutMs: 20, maxAttempts: 1 })
    const ends: string[] = []
    gate.on('attempt_end', (e) => ends.push(e.errorKind))
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ReliabilityFailFastError)
    expect(ends).toEqual(['timeout'])
    held.release()
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(ends).toEqual(['timeout'])
  })

  it.each(CONFIGS)('with %s: a decision that fails the run (a fail-fast) rejects it with the typed error, after every attempt ended', async (_name, config) => {
    let calls = 0
    const provider: Provider = { name: 'p', complete: async () => answer(calls++ === 0 ? '{"orderId": 1}' : 'not json') }
    const gate = createGate({ providers: [provider], outputSchema: Refund, postDecide: strictOutputRules(2), ...config })
    let ends = 0
    gate.on('attempt_end', () => ends++)
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ReliabilityFailFastError)
    expect((error as ReliabilityFailFastError).attempts).toHaveLength(2)
    expect(ends).toBe(2)
  })

  it.each(CONFIGS)('with %s: many runs side by side each settle with their own answer', async (_name, config) => {
    let n = 0
    const provider: Provider = {
      name: 'p',
      complete: async () => {
        const id = n++
        await new Promise((resolve) => setTimeout(resolve, id % 3))
        return answer(JSON.stringify({ orderId: String(id), action: 'refund', amount: id }))
      },
    }
    const gate = createGate({ providers: [provider], outputSchema: Refund, ...config })
    const results = await Promise.all(Array.from({ length: 30 }, () => gate.run(ask('x'))))
    const amounts = results.map((r) => (r.value as { amount: number }).amount).sort((a, b) => a - b)
    expect(amounts).toEqual(Array.from({ length: 30 }, (_, i) => i))
    for (const r of results) expect(r.value).toMatchObject({ orderId: String((r.value as { amount: number }).amount) })
  })

  // The provider's answer reaches the run of stages bare (no user link between), whatever it is.
  const valid = answer(validRefundJson)
  const ANSWERS: readonly (readonly [string, () => unknown, 'ok' | string])[] = [
    ['a thenable of a valid answer', () => ({ then: (resolve: (v: unknown) => void) => resolve(valid) }), 'ok'],
    ['a valid answer, not in a promise', () => valid, 'ok'],
    ['a thenable that rejects', () => ({ then: (_: unknown, reject: (e: unknown) => void) => reject(new Error('down')) }), 'unknown'],
    [
      'a throw, synchronously',
      () => {
        throw new Error('down')
      },
      'unknown',
    ],
    [
      'an object whose then getter throws',
      () =>
        Object.defineProperty({}, 'then', {
          get: () => {
            throw new Error('hostile then')
          },
        }),
      'unknown',
    ],
    ['null', () => null, 'malformed-response'],
  ]

  for (const [configName, config] of CONFIGS) {
    it.each(ANSWERS)(`with ${configName}: a provider answering %s settles the run with the documented outcome`, async (_name, make, kind) => {
      const provider = { name: 'p', complete: make } as unknown as Provider
      const gate = createGate({ providers: [provider], outputSchema: Refund, maxAttempts: 1, ...config })
      const outcome = await gate.run(ask('x')).then(
        (result) => ({ kind: 'ok', value: result.value as unknown }),
        (error: unknown) => ({ kind: (error as ReliabilityFailFastError).attempts?.[0]?.errorKind, error }),
      )
      expect(outcome.kind).toBe(kind)
      if (kind === 'ok') expect(outcome).toMatchObject({ value: { orderId: '42' } })
      else expect((outcome as { error: unknown }).error).toBeInstanceOf(ReliabilityFailFastError)
    })
  }
})
