import fc from 'fast-check'
import { expect, it } from 'vitest'
import { redisSessionStore } from '../../src/sessions/redis-session-store.ts'
import { describeWith, redisServer } from '../support/requirements.ts'
import { useRedis } from './support/use-redis.ts'

const redis = useRedis()

describeWith(redisServer)('redisSessionStore keys', () => {
  it("keeps two tenants apart when one's prefix and id spell the other's key (chat: + acme}:{c1, chat:{acme}: + c1)", async () => {
    await redis.client.flushall()
    const acme = redisSessionStore(redis.client, { keyPrefix: 'chat:{acme}:' })
    const other = redisSessionStore(redis.client, { keyPrefix: 'chat:' })
    await acme.append('c1', { expectedVersion: 0, exchange: [{ role: 'user', content: 'acme secret' }] })
    const stolen = await other.load('acme}:{c1')
    expect(stolen).toMatchObject({ version: 0, messages: [] })
    // The other tenant's write lands in a conversation of its own, never in acme's.
    await other.append('acme}:{c1', { expectedVersion: 0, exchange: [{ role: 'user', content: 'forged' }] })
    expect((await acme.load('c1')).messages).toEqual([{ role: 'user', content: 'acme secret' }])
    expect((await other.load('acme}:{c1')).messages).toEqual([{ role: 'user', content: 'forged' }])
  })

  it('gives every pair of prefix and id a key of its own, braces and percent signs included', async () => {
    const part = fc.string({ unit: fc.constantFrom('a', ':', '{', '}', '%', '7', 'B', 'D', 'x'), minLength: 1, maxLength: 6 })
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.tuple(part, part), { minLength: 2, maxLength: 4, selector: ([p, id]) => `${p}\u0001${id}` }), async (pairs) => {
        await redis.client.flushall()
        for (const [i, [prefix, id]] of pairs.entries()) {
          const store = redisSessionStore(redis.client, { keyPrefix: prefix })
          await store.append(id, { expectedVersion: 0, exchange: [{ role: 'user', content: `pair ${i}` }] })
        }
        for (const [i, [prefix, id]] of pairs.entries()) {
          const loaded = await redisSessionStore(redis.client, { keyPrefix: prefix }).load(id)
          expect(loaded.messages).toEqual([{ role: 'user', content: `pair ${i}` }])
        }
      }),
      { numRuns: 60 },
    )
  })
})
