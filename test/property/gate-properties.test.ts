import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Agent, createGate, defaultStuckLoopRule, ProviderError, strictOutputRules, type ReliabilityRule } from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { Refund, validRefundJson } from '../support/schemas.ts'

type Outcome = { t: 'valid' } | { t: 'invalid'; n: number } | { t: 'garbage' } | { t: 'error'; kind: 'rate-limit' | 'http-5xx' | 'timeout' } | { t: 'tools' }

const outcome: fc.Arbitrary<Outcome> = fc.oneof(
  fc.constant({ t: 'valid' as const }),
  fc.record({ t: fc.constant('invalid' as const), n: fc.integer({ min: 0, max: 3 }) }),
  fc.constant({ t: 'garbage' as const }),
  fc.record({ t: fc.constant('error' as const), kind: fc.constantFrom('rate-limit' as const, 'http-5xx' as const, 'timeout' as const) }),
  fc.constant({ t: 'tools' as const }),
)

const step = (o: Outcome): ScriptedStep => {
  switch (o.t) {
    case 'valid':
      return validRefundJson
    case 'invalid':
      return `{"orderId": "42", "action": "refund", "amount": "USD ${o.n}"}`
    case 'garbage':
      return 'I think the refund is fine.'
    case 'error':
      return new ProviderError(o.kind, { kind: o.kind })
    case 'tools':
      return { content: '', toolCalls: [{ id: 't1', name: 'lookup', args: { id: 1 } }] }
  }
}

const ruleSet: fc.Arbitrary<readonly ReliabilityRule[]> = fc.constantFrom<readonly ReliabilityRule[]>(
  [],
  strictOutputRules(3),
  [defaultStuckLoopRule, ...strictOutputRules(6)],
  [{ when: (s) => s.errorKind !== 'ok', then: 'retry', kind: 'retry-everything' }],
  [{ when: () => true, then: 'retry', kind: 'always-retry' }],
  [{ when: (s) => s.errorKind !== 'ok' && s.canSwitchProvider, then: 'retry-other', kind: 'failover' }, ...strictOutputRules(4)],
)

const deepFreeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

describe('gate properties', () => {
  it('holds the cap, never mutates the request, and emits validation_failed before its decision', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(outcome, { minLength: 1, maxLength: 14 }), ruleSet, fc.integer({ min: 1, max: 6 }), async (outcomes, rules, cap) => {
        const steps = outcomes.map(step)
        const first = scripted(steps, { name: 'a' })
        const second = scripted(steps, { name: 'b' })
        const gate = createGate({ providers: [first, second], outputSchema: Refund, postDecide: rules, maxAttempts: cap })
        const log: string[] = []
        gate.on('validation_failed', (e) => log.push(`v${e.attempt}`))
        gate.on('decision', (e) => log.push(`d${e.attempt}`))
        const request = deepFreeze({ system: 'sys', messages: [{ role: 'user' as const, content: 'refund #42' }] })
        const before = JSON.stringify(request)
        const result = await gate.run(request).then(
          (r) => ({ ok: true as const, attempts: r.attempts.length }),
          (e: { attempts?: readonly unknown[] }) => ({ ok: false as const, attempts: e.attempts?.length ?? -1 }),
        )
        const calls = first.calls + second.calls
        expect(calls).toBeLessThanOrEqual(cap)
        // Every provider call is logged (and a non-fail-fast rejection, e.g. from mutating the frozen request, shows as -1).
        expect(result.attempts).toBe(calls)
        expect(JSON.stringify(request)).toBe(before)
        for (let i = 0; i < log.length; i++) {
          const entry = log[i] as string
          if (entry.startsWith('v')) expect(log[i + 1]).toBe(`d${entry.slice(1)}`)
        }
      }),
      { numRuns: 1000 },
    )
  })

  it('with strictOutputRules(n) and distinct failures, succeeds iff fewer than n failures precede the first valid answer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 8 }), async (n, failures) => {
        const steps: ScriptedStep[] = Array.from({ length: failures }, (_, i) => `{"orderId": "42", "action": "refund", "amount": "USD ${i}"}`)
        steps.push(validRefundJson)
        const provider = scripted(steps)
        const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(n) })
        const succeeded = await gate.run({ messages: [{ role: 'user', content: 'x' }] }).then(
          () => true,
          () => false,
        )
        expect(succeeded).toBe(failures < n)
        expect(provider.calls).toBe(Math.min(failures + 1, n))
      }),
      { numRuns: 1000 },
    )
  })

  it('never lets an ephemeral message or a rejected answer into the persisted history', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(outcome, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }), async (runs) => {
        const steps = runs.flat().map(step)
        const agent = Agent.create({ provider: scripted(steps), model: 'm' })
          .outputSchema(Refund)
          .reliability({ postDecide: strictOutputRules(3) })
          .build()
        // A tool-call turn continues the tool loop, so an accepted exchange may hold more than two messages.
        let committed = 0
        for (let i = 0; i < runs.length; i++) {
          const before = agent.history
          const ok = await agent.runDetailed(`message ${i}`).then(
            (r) => ((committed += r.exchange.length), true),
            () => false,
          )
          if (!ok) expect(agent.history).toBe(before)
        }
        expect(agent.history).toHaveLength(committed)
        expect(agent.history.some((m) => m.ephemeral === true)).toBe(false)
        for (const m of agent.history.filter((m) => m.role === 'assistant')) {
          expect(m.content === validRefundJson || m.content === '').toBe(true)
        }
      }),
      { numRuns: 1000 },
    )
  })
})
