import { describe, expect, it } from 'vitest'
import { circuitBreaker, createGate, memoryStore, ProviderError, sharedBudget, type GateEventMap, type Provider } from '../../src/index.ts'
import { ask } from '../support/schemas.ts'

// Events raised inside the attempt chain (the breaker's, the shared budget's) carry the run's turn
// and metadata like every other event of the run.

const failing: Provider = { name: 'p', complete: () => Promise.reject(new ProviderError('down', { kind: 'http-5xx', provider: 'p' })) }
const metadata = Object.freeze({ tenant: 'acme', requestId: 'r-1' })

describe('events from inside the attempt chain', () => {
  it('tags breaker_state with the run id, turn and metadata', async () => {
    const gate = createGate({ providers: failing, breaker: circuitBreaker({ store: memoryStore(), failureThreshold: 1 }), maxAttempts: 1 })
    const seen: GateEventMap['breaker_state'][] = []
    gate.on('breaker_state', (e) => seen.push(e))
    await gate.run(ask('x'), { runId: 'run-7', turn: 3, metadata }).catch(() => undefined)
    expect(seen).toEqual([expect.objectContaining({ runId: 'run-7', turn: 3, metadata, from: 'closed', to: 'open' })])
  })

  it("tags the shared budget's budget_exceeded with the run id, turn and metadata", async () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 0.01, reserveUsd: 1 })
    const gate = createGate({ providers: failing, budget, maxAttempts: 1 })
    const seen: GateEventMap['budget_exceeded'][] = []
    gate.on('budget_exceeded', (e) => seen.push(e))
    await expect(gate.run(ask('x'), { runId: 'run-8', turn: 2, metadata })).rejects.toMatchObject({ kind: expect.any(String) })
    expect(seen).toEqual([expect.objectContaining({ runId: 'run-8', turn: 2, metadata })])
  })
})
