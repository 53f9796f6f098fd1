import { afterEach, describe, expect, it, vi } from 'vitest'
import { createGate, memoryStore, ProviderError, sharedBudget, type Provider, type Reservation, type StateStore } from '../../src/index.ts'
import { reservationUsage } from '../../src/policies/budget/reservation-estimate.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask } from '../support/schemas.ts'

// $1 per million input tokens, $4 per million output tokens.
const pricing = { m: { input: 1, output: 4 } }

/** A store that records every reservation and settlement it is asked for. */
function recording(store: StateStore = memoryStore()): StateStore & { reserved: number[]; settled: number[] } {
  const reserved: number[] = []
  const settled: number[] = []
  return {
    ...store,
    reserved,
    settled,
    reserve(key, id, amount, limit, ttlMs): Promise<Reservation> {
      reserved.push(amount)
      return store.reserve(key, id, amount, limit, ttlMs)
    },
    settle(key, id, amount, ttlMs) {
      settled.push(amount)
      return store.settle(key, id, amount, ttlMs)
    },
  }
}

/** A provider answering after `ms` with a fixed usage. */
const costing = (usage: { inputTokens: number; outputTokens: number }, ms = 0): Provider => ({
  name: 'p',
  complete: () => new Promise((resolve) => setTimeout(() => resolve({ content: 'ok', toolCalls: [], usage, stopReason: 'end' }), ms)),
})

afterEach(() => {
  vi.useRealTimers()
})

describe('reservationUsage', () => {
  it('bounds input by the UTF-8 bytes of what is sent plus a per-message overhead, and output by maxTokens', () => {
    const usage = reservationUsage({ system: 'héllo', messages: [{ role: 'user', content: '日本' }], maxTokens: 300 }, 4096)
    // 'héllo' is 6 bytes, '日本' 6 bytes; 8 tokens per message and 8 for the request.
    expect(usage).toEqual({ inputTokens: 6 + 6 + 8 + 8, outputTokens: 300 })
  })

  it('never counts fewer input bytes than UTF-8 encoding writes, lone surrogates included', () => {
    const content = '\uD800日'
    const usage = reservationUsage({ messages: [{ role: 'user', content }] }, 1)
    expect(usage.inputTokens).toBe(new TextEncoder().encode(content).length + 8 + 8)
  })

  it('reserves assumedOutputTokens when the request sets no maxTokens', () => {
    expect(reservationUsage({ messages: [] }, 1234).outputTokens).toBe(1234)
  })
})

describe('sharedBudget in the gate: reserve, then commit', () => {
  it('reserves the priced upper bound before the call and commits the real cost after it', async () => {
    const store = recording()
    const budget = sharedBudget({ store, key: 'b', usd: 1 })
    const gate = createGate({ providers: costing({ inputTokens: 100, outputTokens: 50 }), model: 'm', pricing, budget })
    await gate.run({ ...ask('hi'), maxTokens: 1000 })
    const bound = reservationUsage({ ...ask('hi'), maxTokens: 1000 }, 4096)
    expect(store.reserved).toEqual([(bound.inputTokens * 1 + 1000 * 4) / 1e6])
    expect(store.settled).toEqual([(100 + 50 * 4) / 1e6])
    expect(await budget.spent()).toBeCloseTo(300 / 1e6, 12)
  })

  it('reserves a fixed reserveUsd when one is configured', async () => {
    const store = recording()
    const gate = createGate({
      providers: costing({ inputTokens: 100, outputTokens: 50 }),
      model: 'm',
      pricing,
      budget: sharedBudget({ store, key: 'b', usd: 1, reserveUsd: 0.01 }),
    })
    await gate.run(ask('hi'))
    expect(store.reserved).toEqual([0.01])
  })

  it('releases the whole reservation when the call fails', async () => {
    const store = recording()
    const budget = sharedBudget({ store, key: 'b', usd: 1 })
    const gate = createGate({ providers: scripted([new ProviderError('down', { kind: 'http-5xx' })]), model: 'm', pricing, budget })
    await expect(gate.run(ask('hi'))).rejects.toMatchObject({ kind: 'http-5xx' })
    expect(store.settled).toEqual([0])
    expect(await store.reserve('b', 'probe', 1, 1, 60_000)).toEqual({ granted: true, spent: 0, held: 0 })
  })

  it('releases the reservation at once when the run is aborted while the provider hangs', async () => {
    const store = recording()
    const controller = new AbortController()
    const hung: Provider = { name: 'p', complete: () => new Promise(() => {}) }
    const gate = createGate({ providers: hung, model: 'm', pricing, budget: sharedBudget({ store, key: 'b', usd: 1 }) })
    const run = gate.run(ask('hi'), { signal: controller.signal })
    setTimeout(() => controller.abort(), 5)
    await expect(run).rejects.toMatchObject({ kind: 'aborted' })
    await vi.waitFor(() => expect(store.settled).toEqual([0]))
  })

  it('fails before the provider is called when even the reservation cannot fit the budget', async () => {
    const provider = scripted(['never'])
    const gate = createGate({
      providers: provider,
      model: 'm',
      pricing,
      budget: sharedBudget({ store: memoryStore(), key: 'b', usd: 0.001, reserveUsd: 0.002 }),
    })
    await expect(gate.run(ask('hi'))).rejects.toMatchObject({
      kind: 'budget-exceeded',
      reason: expect.stringContaining('cannot fit attempt 1 (reserving $0.002; $0 spent)'),
    })
    expect(provider.calls).toBe(0)
  })

  it('waits for attempts in flight instead of failing while the rest of the budget is only reserved', async () => {
    // Each attempt reserves $0.2 and really costs $0.1: two fit the $0.3 budget in turn, not at once.
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 0.3, reserveUsd: 0.2 })
    const gate = createGate({ providers: costing({ inputTokens: 100_000, outputTokens: 0 }, 20), model: 'm', pricing, budget })
    const results = await Promise.allSettled([gate.run(ask('a')), gate.run(ask('b')), gate.run(ask('c'))])
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'fulfilled', 'rejected'])
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { kind: 'budget-exceeded' } })
    expect(await budget.spent()).toBeCloseTo(0.2, 12)
  })

  it('waits out the reservation of a crashed process until its ttl frees it', async () => {
    vi.useFakeTimers()
    const store = memoryStore()
    const budget = sharedBudget({ store, key: 'b', usd: 1, reserveUsd: 0.5, reservationTtlMs: 60_000, maxWaitMs: 120_000 })
    await store.reserve('b', 'crashed-process', 0.9, 1, 60_000)
    const provider = scripted(['ok'])
    const gate = createGate({ providers: provider, model: 'm', pricing, budget })
    const run = gate.run(ask('hi'))
    await vi.advanceTimersByTimeAsync(59_000)
    expect(provider.calls).toBe(0)
    await vi.advanceTimersByTimeAsync(2_000)
    await expect(run).resolves.toMatchObject({ value: 'ok' })
    expect(provider.calls).toBe(1)
  })

  it('gives up after maxWaitMs with kind budget-exceeded, naming what is held', async () => {
    vi.useFakeTimers()
    const store = memoryStore()
    await store.reserve('b', 'crashed-process', 0.9, 1, 600_000)
    const gate = createGate({
      providers: scripted(['ok']),
      model: 'm',
      pricing,
      budget: sharedBudget({ store, key: 'b', usd: 1, reserveUsd: 0.5, maxWaitMs: 1_000 }),
    })
    const run = gate.run(ask('hi'))
    run.catch(() => undefined)
    await vi.advanceTimersByTimeAsync(1_500)
    await expect(run).rejects.toMatchObject({ kind: 'budget-exceeded', reason: expect.stringContaining('$0.9 held by attempts in flight') })
  })

  it('never overspends with 100 concurrent spenders, and leaves less than one attempt of it unused', async () => {
    const budget = sharedBudget({ store: memoryStore(), key: 'b', usd: 1 })
    let real = 0
    let seed = 7
    const random = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647
    const provider: Provider = {
      name: 'p',
      complete: (request) =>
        new Promise((resolve) => {
          const usage = { inputTokens: 200 + Math.floor(random() * 200), outputTokens: Math.floor(random() * (request.maxTokens ?? 0)) }
          real += (usage.inputTokens + usage.outputTokens * 4) / 1e6
          setTimeout(() => resolve({ content: 'ok', toolCalls: [], usage, stopReason: 'end' }), random() * 5)
        }),
    }
    const gate = createGate({ providers: provider, model: 'm', pricing, budget })
    const spender = async (): Promise<void> => {
      for (;;) {
        try {
          await gate.run({ ...ask('x'.repeat(1600)), maxTokens: 300 })
        } catch {
          return
        }
      }
    }
    await Promise.all(Array.from({ length: 100 }, spender))
    const spent = await budget.spent()
    expect(spent).toBeCloseTo(real, 9)
    expect(spent).toBeLessThanOrEqual(1)
    expect(spent).toBeGreaterThan(0.99)
  })
})
