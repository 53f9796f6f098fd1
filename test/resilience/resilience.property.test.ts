import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createGate,
  failoverRule,
  isReliabilityFailFastError,
  ProviderError,
  retryTransient,
  strictOutputRules,
  type AttemptRecord,
  type ReliabilityRule,
  type Usage,
} from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { Refund, validRefundJson } from '../support/schemas.ts'

type Step = { t: 'valid'; usage: Usage } | { t: 'invalid'; n: number; usage: Usage } | { t: 'error'; kind: 'rate-limit' | 'http-5xx' | 'timeout' | 'network' }

const usage: fc.Arbitrary<Usage> = fc.record(
  {
    inputTokens: fc.integer({ min: 0, max: 200_000 }),
    outputTokens: fc.integer({ min: 0, max: 50_000 }),
    cacheReadTokens: fc.integer({ min: 0, max: 100_000 }),
    cacheWriteTokens: fc.integer({ min: 0, max: 100_000 }),
  },
  { requiredKeys: ['inputTokens', 'outputTokens'] },
)

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ t: fc.constant('valid' as const), usage }),
  fc.record({ t: fc.constant('invalid' as const), n: fc.integer({ min: 0, max: 1000 }), usage }),
  fc.record({
    t: fc.constantFrom('error' as const),
    kind: fc.constantFrom('rate-limit' as const, 'http-5xx' as const, 'timeout' as const, 'network' as const),
  }),
)

const toStep = (s: Step): ScriptedStep => {
  switch (s.t) {
    case 'valid':
      return { content: validRefundJson, usage: s.usage }
    case 'invalid':
      // Distinct messages, so the stuck-loop rule does not cut runs short every time.
      return { content: `{"orderId": "42", "action": "refund", "amount": "USD ${s.n}", "x${s.n}": 1}`, usage: s.usage }
    case 'error':
      return new ProviderError(s.kind, { kind: s.kind })
  }
}

const retryAnything: ReliabilityRule = { when: (s) => s.errorKind !== 'ok', then: 'retry', kind: 'retry-anything' }
const rules: fc.Arbitrary<readonly ReliabilityRule[]> = fc.constantFrom<readonly ReliabilityRule[]>(
  [],
  strictOutputRules(4),
  [retryTransient({ backoff: () => 0 }), ...strictOutputRules(4)],
  [failoverRule(), ...strictOutputRules(3)],
  [retryAnything],
  [failoverRule(), retryAnything],
)

// Example prices for the property only.
const pricing = { 'model-a': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }, 'model-b': { input: 0.25, output: 1.25 } }
const price = (u: Usage, model: 'model-a' | 'model-b') => {
  const p = pricing[model] as { input: number; output: number; cacheRead?: number; cacheWrite?: number }
  return (
    (u.inputTokens * p.input +
      u.outputTokens * p.output +
      (u.cacheReadTokens ?? 0) * (p.cacheRead ?? p.input) +
      (u.cacheWriteTokens ?? 0) * (p.cacheWrite ?? p.input)) /
    1e6
  )
}

type Settled = { readonly attempts: readonly AttemptRecord[]; readonly costUsd: number; readonly usage: Usage }

const settle = async (p: Promise<Settled>): Promise<Settled> => {
  try {
    return await p
  } catch (error) {
    if (isReliabilityFailFastError(error)) return error
    throw error
  }
}

describe('resilience properties', () => {
  it('cumulative cost equals the sum over all attempts, failed ones included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 1, maxLength: 12 }),
        fc.array(stepArb, { minLength: 1, maxLength: 12 }),
        rules,
        fc.integer({ min: 1, max: 8 }),
        async (stepsA, stepsB, postDecide, cap) => {
          const a = scripted(stepsA.map(toStep), { name: 'a' })
          const b = scripted(stepsB.map(toStep), { name: 'b' })
          const gate = createGate({
            providers: [
              { provider: a, model: 'model-a' },
              { provider: b, model: 'model-b' },
            ],
            outputSchema: Refund,
            pricing,
            postDecide,
            maxAttempts: cap,
          })
          let ticked = 0
          let lastCumulative = 0
          gate.on('cost_tick', (e) => {
            ticked += e.attemptCostUsd
            lastCumulative = e.cumulativeCostUsd
          })
          const out = await settle(gate.run({ messages: [{ role: 'user', content: 'refund #42' }] }))

          // What the providers were actually asked for, priced independently of the gate.
          const billed = (steps: Step[], calls: number, model: 'model-a' | 'model-b') =>
            steps.slice(0, calls).reduce((sum, s) => sum + (s.t === 'error' ? 0 : price(s.usage, model)), 0)
          const expected = billed(stepsA, a.calls, 'model-a') + billed(stepsB, b.calls, 'model-b')
          const sumOfAttempts = out.attempts.reduce((sum, r) => sum + r.costUsd, 0)

          expect(out.attempts.length).toBe(a.calls + b.calls)
          expect(out.costUsd).toBeCloseTo(expected, 9)
          expect(out.costUsd).toBeCloseTo(sumOfAttempts, 9)
          expect(ticked).toBeCloseTo(out.costUsd, 9)
          expect(lastCumulative).toBeCloseTo(out.costUsd, 9)
          const inputs = [...stepsA.slice(0, a.calls), ...stepsB.slice(0, b.calls)].reduce((n, s) => n + (s.t === 'error' ? 0 : s.usage.inputTokens), 0)
          expect(out.usage.inputTokens).toBe(inputs)
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('the breaker never makes the loop exceed its cap, nor spin on an open breaker', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 1, maxLength: 40 }),
        rules,
        fc.integer({ min: 1, max: 8 }),
        fc.record({
          failureThreshold: fc.integer({ min: 1, max: 3 }),
          cooldownMs: fc.integer({ min: 0, max: 50 }),
          halfOpenMaxProbes: fc.integer({ min: 1, max: 2 }),
          successesToClose: fc.integer({ min: 1, max: 2 }),
        }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 4 }),
        async (steps, postDecide, cap, breakerOptions, tick, runs) => {
          // The breaker's clock moves on by `tick` every time it is read, so cooldowns end mid-property.
          let t = 0
          const now = () => (t += tick)
          const script = steps.map(toStep)
          // Enough steps for every call: running out of script would itself be an (unknown) failure.
          const a = scripted([...script, ...script, ...script, ...script, ...script, ...script, ...script, ...script], { name: 'a' })
          const b = scripted([...script, ...script, ...script, ...script, ...script, ...script, ...script, ...script], { name: 'b' })
          const gate = createGate({ providers: [a, b], outputSchema: Refund, postDecide, maxAttempts: cap, breaker: { ...breakerOptions, now } })
          for (let i = 0; i < runs; i++) {
            const callsBefore = a.calls + b.calls
            const out = await settle(gate.run({ messages: [{ role: 'user', content: 'refund #42' }] }))
            expect(out.attempts.length).toBeLessThanOrEqual(cap)
            expect(a.calls + b.calls - callsBefore).toBeLessThanOrEqual(cap)
            // An open breaker either fails over (finitely many providers) or stops the run.
            expect(out.attempts.filter((r) => r.errorKind === 'circuit-open').length).toBeLessThanOrEqual(2)
          }
        },
      ),
      { numRuns: 1000 },
    )
  })
})
