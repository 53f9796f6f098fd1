import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { circuitBreaker, createGate, isReliabilityFailFastError, memoryStore, sharedBudget, sharedRateLimit } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, validRefundJson } from '../support/schemas.ts'

// 1 USD per million input tokens: an answer of 100_000 input tokens costs $0.10.
const pricing = { m: { input: 1, output: 0 } }
const tenCents = { content: validRefundJson, usage: { inputTokens: 100_000, outputTokens: 0 } }

/** Text that JavaScript does not read as a finite number. */
const unreadable = fc.string().filter((s) => s.trim() === '' || !Number.isFinite(Number(s)))

describe('memoryStore with a value that cannot be read', () => {
  it('refuses increment, reserve and settle on any counter that does not hold a number, and keeps the value', async () => {
    await fc.assert(
      fc.asyncProperty(unreadable, async (corrupt) => {
        const store = memoryStore()
        await store.set('n', corrupt)
        await expect(store.increment('n', 1)).rejects.toThrow(TypeError)
        await expect(store.reserve('n', 'r', 0.1, 1, 60_000)).rejects.toThrow(
          /memoryStore: reserve of "n" finds .*, which is not a number: refused rather than read as 0/,
        )
        await expect(store.settle('n', 'r', 0.1)).rejects.toThrow(TypeError)
        expect(await store.get('n')).toBe(corrupt)
      }),
      { numRuns: 200 },
    )
  })

  it('fails a shared budget closed when its counter is overwritten: the provider is not called again', async () => {
    const store = memoryStore()
    const budget = sharedBudget({ store, key: 'budget', usd: 1 })
    const provider = scripted([tenCents, tenCents])
    const gate = createGate({ providers: provider, model: 'm', pricing, budget })
    await gate.run(ask('1'))
    await store.set('budget', 'not-a-number')
    const error = await gate.run(ask('2')).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'unknown', cause: { code: 'budget-store-failed' } })
    expect((error as Error).message).toMatch(/not a number: refused rather than read as 0/)
    expect(provider.calls).toBe(1)
    await expect(budget.spent()).rejects.toThrow(/sharedBudget: the spend under "budget" holds "not-a-number", which is not a number/)
  })

  it('refuses the spend of a store that answers no string (null, a number) as unreadable, with a TypeError naming it', async () => {
    for (const answer of [null, 3, {}]) {
      const store = { ...memoryStore(), get: async () => answer as unknown as string }
      const budget = sharedBudget({ store, key: 'budget', usd: 1 })
      await expect(budget.spent()).rejects.toThrow(/sharedBudget: the spend under "budget" holds .*, which is not a number/)
    }
  })

  it('lets a call through a rate limit whose window counter is overwritten (advisory), the limit itself rejecting', async () => {
    const store = memoryStore()
    const rateLimit = sharedRateLimit({ store, key: 'rate', limit: 1, windowMs: 1_000, now: () => 5_000 })
    await store.set('{rate:llm}:5', 'full')
    await expect(rateLimit.acquire('llm')).rejects.toThrow(/not a number/)
    const provider = scripted([validRefundJson, validRefundJson], { name: 'llm' })
    const gate = createGate({ providers: provider, rateLimit })
    await gate.run(ask('1'))
    await gate.run(ask('2'))
    expect(provider.calls).toBe(2)
  })

  it.each(['not json', '[]', '"open"', '{"state":"OPEN"}', '{"state":"open","openedAt":"1e3"}', '{"state":"half-open","probes":1e999}'])(
    'refuses a breaker record %j with a TypeError, on the in-process path and the awaited one',
    async (record) => {
      const store = memoryStore()
      const breaker = circuitBreaker({ store })
      await store.set('rg:breaker:llm', record)
      await expect(breaker.acquire('llm')).rejects.toThrow(/circuitBreaker: the record of "rg:breaker:llm" cannot be read/)
      const provider = scripted([validRefundJson], { name: 'llm' })
      await createGate({ providers: provider, breaker }).run(ask('1'))
      expect(provider.calls).toBe(1)
      expect(await store.get('rg:breaker:llm')).toBe(record)
    },
  )

  it('still reads a breaker record it wrote itself', async () => {
    const store = memoryStore()
    const breaker = circuitBreaker({ store, failureThreshold: 1, cooldownMs: 60_000 })
    const permit = await breaker.acquire('llm')
    await breaker.record('llm', permit, 'failure')
    expect((await breaker.state('llm')).state).toBe('open')
    expect((await breaker.acquire('llm')).allowed).toBe(false)
  })
})

describe('a shared budget on memoryStore whose counter is overwritten while an attempt runs', () => {
  it('fails the charge closed, with code budget-store-failed', async () => {
    const store = memoryStore()
    const budget = sharedBudget({ store, key: 'budget', usd: 1 })
    const provider = scripted([
      async () => {
        await store.set('budget', 'not-a-number')
        return tenCents
      },
    ])
    const gate = createGate({ providers: provider, model: 'm', pricing, budget })
    const error = await gate.run(ask('1')).catch((e: unknown) => e)
    expect(error).toMatchObject({ cause: { code: 'budget-store-failed' } })
    expect((error as Error).message).toMatch(/could not be charged: memoryStore: settle of "budget" finds "not-a-number"/)
    expect(await store.get('budget')).toBe('not-a-number')
  })
})

describe('the advisory policies of a gate whose state cannot be read', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  const warnings = () => vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
  const unreadableWarnings = (spy: ReturnType<typeof warnings>) =>
    spy.mock.calls.filter((call) => (call[1] as { code?: string } | undefined)?.code === 'RELIABILITY_GATE_STATE_UNREADABLE')

  it('reports an unreadable breaker record once as a process warning, and the calls go through', async () => {
    const spy = warnings()
    const store = memoryStore()
    await store.set('rg:breaker:llm', '{"state":"open","openedAt":"soon"}')
    const provider = scripted([validRefundJson, validRefundJson], { name: 'llm' })
    const gate = createGate({ providers: provider, breaker: circuitBreaker({ store }) })
    await gate.run(ask('1'))
    await gate.run(ask('2'))
    expect(provider.calls).toBe(2)
    const reported = unreadableWarnings(spy)
    expect(reported).toHaveLength(1)
    expect(String(reported[0]?.[0])).toMatch(/the circuit breaker cannot read its state \(circuitBreaker: the record of "rg:breaker:llm" cannot be read/)
  })

  it('reports an unreadable rate-limit window once as a process warning, and the calls go through', async () => {
    const spy = warnings()
    const store = memoryStore()
    await store.set('{rate:llm}:5', 'full')
    const provider = scripted([validRefundJson, validRefundJson], { name: 'llm' })
    const gate = createGate({ providers: provider, rateLimit: sharedRateLimit({ store, key: 'rate', limit: 1, windowMs: 1_000, now: () => 5_000 }) })
    await gate.run(ask('1'))
    await gate.run(ask('2'))
    expect(provider.calls).toBe(2)
    const reported = unreadableWarnings(spy)
    expect(reported).toHaveLength(1)
    expect(String(reported[0]?.[0])).toMatch(/the rate limit cannot read its state .*not a number/)
  })

  it('says nothing of a store that merely fails', async () => {
    const spy = warnings()
    const failing = { ...memoryStore(), get: () => Promise.reject(new Error('down')), compareAndSet: () => Promise.reject(new Error('down')) }
    const provider = scripted([validRefundJson], { name: 'llm' })
    await createGate({ providers: provider, breaker: circuitBreaker({ store: failing }) }).run(ask('1'))
    expect(provider.calls).toBe(1)
    expect(unreadableWarnings(spy)).toEqual([])
  })
})
