import { describe, expect, expectTypeOf, it } from 'vitest'
import { createGate, maxCostRule, type ReliabilityScope } from '../../src/index.ts'
import type { CostBudget } from '../../src/agent/index.ts'
import type { MaxCostOptions } from '../../src/rules/index.ts'
import { scripted } from '../../src/providers/index.ts'

describe('one name for one thing', () => {
  it('gives the scope one cost field, cumulativeCostUsd', async () => {
    let seen: ReliabilityScope | undefined
    const gate = createGate({
      providers: scripted(['hi']),
      model: 'm',
      pricing: { m: { input: 1, output: 1 } },
      postDecide: [{ when: (s) => ((seen = s), false), then: 'ok', kind: 'spy' }],
    })
    await gate.run({ messages: [{ role: 'user', content: 'hello' }] })
    expect(seen?.cumulativeCostUsd).toBeGreaterThan(0)
    expect(seen !== undefined && 'costUsd' in seen).toBe(false)
  })

  it("names a budget's reaction onExceed in maxCostRule as in costBudget", () => {
    expectTypeOf<MaxCostOptions['onExceed']>().toEqualTypeOf<CostBudget['onExceed']>()
    expect(maxCostRule(1, { onExceed: 'warn' }).then).toBe('ok')
    expect(maxCostRule(1, { onExceed: 'halt' }).then).toBe('fail-fast')
    // @ts-expect-error the old name is gone, and refused when given
    expect(() => maxCostRule(1, { action: 'warn' })).toThrow(/maxCostRule: unknown option "action"/)
  })
})
