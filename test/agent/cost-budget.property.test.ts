import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, isReliabilityFailFastError, strictOutputRules, tool, type AttemptRecord, type Usage } from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'

const Verdict = Type.Object({ ok: Type.Boolean() })
const echo = tool({ name: 'echo', description: '', input: Type.Object({ n: Type.Integer() }), execute: ({ n }) => n })
// Dyadic prices keep every sum exact.
const priceUsage = (u: Usage) => u.inputTokens / 1024

type Step = { t: 'valid' | 'invalid' | 'tool' | 'bad-tool'; tokens: number; n: number }
const stepArb: fc.Arbitrary<Step> = fc.record({
  t: fc.constantFrom('valid' as const, 'invalid' as const, 'tool' as const, 'bad-tool' as const),
  tokens: fc.integer({ min: 0, max: 1024 }),
  n: fc.integer({ min: 0, max: 1000 }),
})

const toStep = (s: Step): ScriptedStep => {
  const usage = { inputTokens: s.tokens, outputTokens: 0 }
  switch (s.t) {
    case 'valid':
      return { content: '{"ok": true}', usage }
    case 'invalid':
      // Distinct messages, so retries are not cut short as a stuck loop.
      return { content: `{"ok": "no ${s.n}"}`, usage }
    case 'tool':
      return { toolCalls: [{ id: `c${s.n}`, name: 'echo', args: { n: s.n } }], usage }
    case 'bad-tool':
      return { toolCalls: [{ id: `c${s.n}`, name: 'echo', args: { n: `x${s.n}` } }], usage }
  }
}

describe('Agent costBudget (property)', () => {
  it('with halt, never starts a model call once the run has spent its budget, retries of every kind included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 16 }), fc.integer({ min: 1, max: 4096 }), async (steps, budgetTokens) => {
        const usd = budgetTokens / 1024
        const provider = scripted([...steps.map(toStep), ...Array.from({ length: 40 }, () => '{"ok": true}')])
        const agent = Agent.create({ provider, maxIterations: 20 })
          .outputSchema(Verdict)
          .tool(echo)
          .reliability({ postDecide: strictOutputRules(4), priceUsage })
          .costBudget({ usd, onExceed: 'halt' })
          .build()
        let attempts: readonly AttemptRecord[]
        let costUsd: number
        let halted = false
        try {
          ;({ attempts, costUsd } = await agent.runDetailed('go'))
        } catch (error) {
          if (!isReliabilityFailFastError(error)) throw error
          ;({ attempts, costUsd } = error)
          halted = error.kind === 'budget-exceeded'
        }
        expect(attempts).toHaveLength(provider.calls)
        let before = 0
        for (const a of attempts) {
          expect(before).toBeLessThan(usd)
          before += a.costUsd
        }
        expect(costUsd).toBe(before)
        if (halted) expect(costUsd).toBeGreaterThanOrEqual(usd)
      }),
      { numRuns: 1000 },
    )
  })
})
