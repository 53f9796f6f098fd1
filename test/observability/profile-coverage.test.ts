import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { createGate, strictOutputRules } from '../../src/index.ts'
import { reliabilityProfile } from '../../src/gate/profile/reliability-profile.ts'
import type { Provider } from '../../src/index.ts'

const Schema = Type.Object({ n: Type.Integer() })
const RUNS = 100
const SIMULATIONS = 400
const TRUE_RATES = [0.15, 0.5, 0.85]

/** A model whose first answer of each run is not JSON, and whose retry is accepted with probability `p` (a seeded generator). */
function modelRecovering(p: number, seed: number): Provider {
  // mulberry32: well mixed from the first draw, whatever the seed.
  let state = seed >>> 0
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
  let first = true
  return {
    name: 'sim',
    async complete() {
      const content = first ? 'not json' : random() < p ? '{"n": 1}' : 'still not json'
      first = !first
      return { content, toolCalls: [], usage: { inputTokens: 10, outputTokens: 5 }, stopReason: 'end' }
    },
  }
}

describe('reliabilityProfile coverage', () => {
  it.each(TRUE_RATES)(`covers a true recovery rate of %s in at least 95% of ${SIMULATIONS} seeded simulations after ${RUNS} runs`, async (p) => {
    let covered = 0
    for (let seed = 1; seed <= SIMULATIONS; seed++) {
      const profile = reliabilityProfile({ buckets: 1 })
      const gate = createGate({
        providers: modelRecovering(p, seed * 7919 + Math.round(p * 1000)),
        model: 'm',
        outputSchema: Schema,
        postDecide: strictOutputRules(2),
      })
      profile.observe(gate)
      for (let run = 0; run < RUNS; run++) await gate.run({ messages: [{ role: 'user', content: 'x' }] }).catch(() => undefined)
      await profile.flush()
      const estimate = profile.recovery({ provider: 'sim', model: 'm', errorClass: 'parse', retry: 1 })
      expect(estimate?.trials).toBe(RUNS)
      if (estimate !== undefined && estimate.low <= p && p <= estimate.high) covered++
    }
    expect(covered / SIMULATIONS).toBeGreaterThanOrEqual(0.95)
  })
})
