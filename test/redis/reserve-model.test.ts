import fc from 'fast-check'
import { expect, it } from 'vitest'
import { memoryStore, type StateStore } from '../../src/index.ts'
import { redisStore } from '../../src/store/redis/index.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { advanceTtls } from './support/redis-client.ts'
import { useRedis } from './support/use-redis.ts'

// redisStore keeps a running total of the reservations in flight instead of summing them on every
// reserve: any sequence of reserves, settles and expiries must give what memoryStore gives.
const redis = useRedis()
const PREFIX = 'model:'

type Step =
  | { readonly op: 'reserve'; readonly id: string; readonly amount: number; readonly limit: number; readonly ttlMs: number }
  | { readonly op: 'settle'; readonly id: string; readonly amount: number }
  | { readonly op: 'advance'; readonly ms: number }

const id = fc.constantFrom('a', 'b', 'c', 'd', '', 'e:f', '{x}')
// TTLs end halfway between the steps of the clock, so a round trip's real milliseconds never decide an expiry.
const ttlMs = fc.integer({ min: 0, max: 4 }).map((k) => k * 10_000 + 5_000)
const advance = fc.integer({ min: 1, max: 3 }).map((k): Step => ({ op: 'advance', ms: k * 10_000 }))

function steps(amount: fc.Arbitrary<number>, withTime: boolean): fc.Arbitrary<Step[]> {
  const reserve = fc.record({ op: fc.constant('reserve' as const), id, amount, limit: fc.constantFrom(0, 0.5, 1, 2, 1e6), ttlMs })
  const settle = fc.record({ op: fc.constant('settle' as const), id, amount })
  return fc.array(withTime ? fc.oneof(reserve, reserve, reserve, settle, advance) : fc.oneof(reserve, reserve, settle), { minLength: 1, maxLength: 30 })
}

/** Runs `plan` on both stores and returns both transcripts. */
async function transcripts(plan: readonly Step[]): Promise<[unknown[], unknown[]]> {
  await redis.client.flushdb()
  let clock = 1_000_000
  const model = memoryStore({ now: () => clock })
  const real = redisStore(redis.client, { keyPrefix: PREFIX })
  const run = async (store: StateStore, step: Step): Promise<unknown> => {
    if (step.op === 'reserve') return store.reserve('budget', step.id, step.amount, step.limit, step.ttlMs)
    if (step.op === 'settle') return store.settle('budget', step.id, step.amount)
    return undefined
  }
  const expected: unknown[] = []
  const got: unknown[] = []
  for (const step of plan) {
    if (step.op === 'advance') {
      clock += step.ms
      await advanceTtls(redis.client, PREFIX, step.ms)
    }
    expected.push(await run(model, step))
    got.push(await run(real, step))
  }
  return [got, expected]
}

describeWith(redisServer)('redisStore reservations against memoryStore', () => {
  it('returns what memoryStore returns for any reserves, settles and expiries (amounts whose sums are exact)', { timeout: 120_000 }, async () => {
    const amount = fc.integer({ min: -64, max: 256 }).map((n) => n / 256)
    await fc.assert(
      fc.asyncProperty(steps(amount, true), async (plan) => {
        const [got, expected] = await transcripts(plan)
        expect(got).toEqual(expected)
      }),
      { numRuns: 100 },
    )
  })

  it('rounds as memoryStore rounds, to the last bit, for any reserves and settles of decimal amounts', { timeout: 120_000 }, async () => {
    const amount = fc.double({ min: 0, max: 10, noNaN: true }).map((x) => x + 0)
    await fc.assert(
      fc.asyncProperty(steps(amount, false), async (plan) => {
        const [got, expected] = await transcripts(plan)
        expect(got).toEqual(expected)
      }),
      { numRuns: 100 },
    )
  })
})
