import { describe, expect, it } from 'vitest'
import { createGate, type GateEventMap, maxCostRule, type ReliabilityRule } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { budgetOnUnpriced } from '../../src/rules/budget-rule.ts'

const plain: ReliabilityRule = { when: () => false, then: 'fail-fast', kind: 'my-check' }

describe('budgetOnUnpriced', () => {
  it("reads maxCostRule's onUnpriced marker", () => {
    expect(budgetOnUnpriced(maxCostRule(1))).toBe('warn')
    expect(budgetOnUnpriced(maxCostRule(1, { onUnpriced: 'fail' }))).toBe('fail')
  })

  it("gives a budget rule without a marker the default 'warn'", () => {
    expect(budgetOnUnpriced({ ...plain, budgetUsd: 2 } as ReliabilityRule)).toBe('warn')
  })

  it('recognises a budget rule by its marker, not by its kind', () => {
    expect(budgetOnUnpriced({ ...plain, onUnpriced: 'fail' } as ReliabilityRule)).toBe('fail')
    expect(budgetOnUnpriced({ ...plain, kind: 'budget-exceeded' })).toBeUndefined()
  })
})

describe('createGate budget pricing check', () => {
  it("refuses a rule of any kind marked onUnpriced 'fail' when nothing is priced", () => {
    const marked = { ...plain, onUnpriced: 'fail' } as ReliabilityRule
    expect(() => createGate({ providers: scripted(['x']), preCheck: [marked] })).toThrow(/fails closed on unpriced attempts/)
  })

  it('does not take a rule merely named budget-exceeded for a budget that needs prices', async () => {
    const gate = createGate({ providers: scripted(['x']), preCheck: [{ ...plain, kind: 'budget-exceeded' }] })
    const unknown: GateEventMap['cost_unknown'][] = []
    gate.on('cost_unknown', (e) => unknown.push(e))
    await gate.run({ messages: [{ role: 'user', content: 'q' }] })
    // Unpriced, as every answer of a gate without prices is; but not the budget's NO_PRICING reason.
    expect(unknown.map((e) => e.reason)).toEqual(['no pricing is configured'])
  })
})
