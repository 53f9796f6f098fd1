import { describe, expect, it } from 'vitest'
import { createGate, memoryStore, sharedBudget, type Provider } from '../../src/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

// Reservations on an in-process store carry short ids (a process-wide counter in base 36). Two gates
// and two budgets share one store and one key, runs side by side, past the counts where an id gains
// a digit: every reservation is found again and released, and the spend is the sum of the costs.

const PRICING = { m: { input: 1_000, output: 1_000 } } as const
const provider: Provider = {
  name: 'p',
  complete: async () => {
    await new Promise((resolve) => setImmediate(resolve))
    return { content: validRefundJson, toolCalls: [], usage: { inputTokens: 10, outputTokens: 10 }, stopReason: 'end' }
  },
}

describe('reservations on an in-process store', () => {
  it('are all released and charged once, for two budgets on one key, 1,400 runs in flight in waves', async () => {
    const store = memoryStore()
    const gates = [0, 1].map(() =>
      createGate({ providers: [provider], model: 'm', outputSchema: Refund, pricing: PRICING, budget: sharedBudget({ store, key: 'team', usd: 1e9 }) }),
    )
    // What the key holds now, asked with a reservation of nothing that is released at once.
    const heldNow = async (): Promise<{ held: number; spent: number }> => {
      const probe = await store.reserve('team', 'probe', 0, 1e9, 1_000)
      await store.settle('team', 'probe', 0, 60_000)
      return probe
    }
    const one = (gates[0] as (typeof gates)[number]).run(ask('x'))
    const single = (await heldNow()).held
    let cost = (await one).costUsd
    expect(single).toBeGreaterThan(0)
    for (let wave = 0; wave < 7; wave++) {
      const pending = Array.from({ length: 200 }, (_, i) => (gates[i % 2] as (typeof gates)[number]).run(ask('x')))
      // Every run in flight holds its own reservation: no two share an id.
      expect((await heldNow()).held).toBeCloseTo(200 * single, 9)
      for (const result of await Promise.all(pending)) cost += result.costUsd
    }
    const probe = await heldNow()
    expect(probe.held).toBe(0)
    expect(probe.spent).toBeCloseTo(cost, 9)
    expect(cost).toBeGreaterThan(0)
  })
})
