import type { Redis } from 'ioredis'
import { beforeAll, beforeEach, expect, it } from 'vitest'
import { createGate, ProviderError, retryTransient, sharedBudget, type StateStore, strictOutputRules } from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { redisStore } from '../../src/store/redis/index.ts'
import { crashingEngine, stepNames } from '../durable/support/crashing-engine.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'
import { useRedis } from './support/use-redis.ts'

const redis = useRedis(1)
let store: StateStore
// Each test its own budget key: a flushed key would be a vanished state, which the store fails closed on.
let key = ''
let tests = 0

// 1 USD per million input tokens: an answer of 100_000 input tokens costs $0.10.
const pricing = { m: { input: 1, output: 0 } }
const tenCents = (content: string): ScriptedStep => ({ content, usage: { inputTokens: 100_000, outputTokens: 0 } })
const script = (): ScriptedStep[] => [
  tenCents('{"not": "a refund"}'),
  new ProviderError('overloaded', { kind: 'http-5xx', status: 503 }),
  tenCents(validRefundJson),
]

/** A gate on the shared Redis budget over `steps`, retrying invalid answers and transient failures. */
const gateOver = (steps: readonly ScriptedStep[]) => {
  const provider = scripted(steps)
  const gate = createGate({
    providers: provider,
    model: 'm',
    pricing,
    outputSchema: Refund,
    budget: sharedBudget({ store, key, usd: 10 }),
    postDecide: [retryTransient({ backoff: { initialMs: 1, maxMs: 2 } }), ...strictOutputRules(4)],
  })
  return { gate, provider }
}
const spent = () => sharedBudget({ store, key, usd: 10 }).spent()

describeWith(redisServer)('A durable gate run on a shared Redis budget', () => {
  beforeAll(() => {
    store = redisStore(redis.client as Redis, { keyPrefix: 'durable:' })
  })
  beforeEach(() => {
    key = `durable-budget-${++tests}`
  })

  it('charges the run its own cost exactly once when it is resumed after a crash between attempts', async () => {
    const journal: string[] = []
    // The process dies in the wait after the 503: attempts 1 and 2 are journaled, nothing is in flight.
    await expect(gateOver(script()).gate.run(ask('refund'), { durable: crashingEngine('budget-run', journal, 2).port })).rejects.toMatchObject({
      kind: 'durable-journal',
    })
    expect(stepNames(journal)).toEqual(['attempt:gate:1', 'attempt:gate:2'])
    expect(await spent()).toBeCloseTo(0.1, 12)
    const resumed = gateOver(script().slice(2))
    const result = await resumed.gate.run(ask('refund'), { durable: crashingEngine('budget-run', journal).port })
    expect(resumed.provider.calls).toBe(1)
    expect(result.costUsd).toBeCloseTo(0.2, 12)
    expect(await spent()).toBeCloseTo(result.costUsd, 12)
  })

  it('charges at most the call in flight more when the process dies inside an attempt', async () => {
    const journal: string[] = []
    // The process dies after attempt 3 answered and was charged, before its step was journaled.
    await expect(gateOver(script()).gate.run(ask('refund'), { durable: crashingEngine('budget-run', journal, 3).port })).rejects.toMatchObject({
      kind: 'durable-journal',
    })
    expect(await spent()).toBeCloseTo(0.2, 12)
    const result = await gateOver(script().slice(2)).gate.run(ask('refund'), { durable: crashingEngine('budget-run', journal).port })
    expect(await spent()).toBeCloseTo(result.costUsd + 0.1, 12)
  })

  it('charges nothing again when a finished run is replayed whole', async () => {
    const journal: string[] = []
    const first = await gateOver(script()).gate.run(ask('refund'), { durable: crashingEngine('budget-run', journal).port })
    const replay = gateOver([])
    const again = await replay.gate.run(ask('refund'), { durable: crashingEngine('budget-run', journal).port })
    expect(replay.provider.calls).toBe(0)
    expect(again.costUsd).toBeCloseTo(first.costUsd, 12)
    expect(await spent()).toBeCloseTo(first.costUsd, 12)
  })
})
