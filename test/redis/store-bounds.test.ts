import { describe, expect, it } from 'vitest'
import { isRedisStoreError, redisStore, type RedisLike, type RedisPipelineLike } from '../../src/store/redis/index.ts'
import { redisSessionStore } from '../../src/sessions/redis-session-store.ts'

// Every test here is bounded: a client that never answers must cost a call its commandTimeoutMs, never a hang.
const BOUND_MS = 2_000
const never = (): Promise<never> => new Promise(() => {})

/** A client whose every command waits until the test answers it; counts what was sent. */
function heldClient() {
  const waiting: ((reply: unknown) => void)[] = []
  const send = (): Promise<unknown> => new Promise((resolve) => waiting.push(resolve))
  const client: RedisLike = { evalsha: send, eval: send }
  return { client, waiting, answerOne: () => waiting.shift()?.(['ok', 'epoch', 'v']) }
}

describe('redisStore bounds: commandTimeoutMs and maxPending', () => {
  it('rejects an operation the server never answers with a RedisStoreError once commandTimeoutMs has passed', { timeout: BOUND_MS }, async () => {
    const store = redisStore({ evalsha: never, eval: never }, { commandTimeoutMs: 50 })
    const error = await store.get('k').catch((e: unknown) => e)
    expect(isRedisStoreError(error)).toBe(true)
    expect(error).toMatchObject({ operation: 'get', key: 'k', message: 'redisStore: get of "k" failed: no answer within 50 ms (commandTimeoutMs)' })
  })

  it('bounds a durable write whose pipeline never answers in the same way', { timeout: BOUND_MS }, async () => {
    const pipeline: RedisPipelineLike = { evalsha: () => undefined, eval: () => undefined, wait: () => undefined, exec: never }
    const store = redisStore({ evalsha: never, eval: never, pipeline: () => pipeline }, { commandTimeoutMs: 60, durable: { replicas: 1, timeoutMs: 10 } })
    await expect(store.settle('budget', 'r1', 1)).rejects.toMatchObject({
      name: 'RedisStoreError',
      operation: 'settle',
      message: expect.stringContaining('within 60 ms'),
    })
  })

  it('refuses at once, unsent, while maxPending operations wait, and sends again once one is answered', { timeout: BOUND_MS }, async () => {
    const held = heldClient()
    const store = redisStore(held.client, { maxPending: 3 })
    const first = [store.get('a'), store.get('b'), store.get('c')]
    await expect(store.get('d')).rejects.toMatchObject({
      name: 'RedisStoreError',
      message: 'redisStore: get of "d" failed: 3 operations already wait for the server (maxPending 3): not sent',
    })
    expect(held.waiting).toHaveLength(3)
    held.answerOne()
    await first[0]
    const fourth = store.get('d')
    expect(held.waiting).toHaveLength(3)
    while (held.waiting.length > 0) held.answerOne()
    expect(await Promise.all([...first.slice(1), fourth])).toEqual(['v', 'v', 'v'])
  })

  it('counts an operation that timed out as waiting until the server answers it', { timeout: BOUND_MS }, async () => {
    const held = heldClient()
    const store = redisStore(held.client, { maxPending: 1, commandTimeoutMs: 20 })
    await expect(store.get('a')).rejects.toThrow('no answer within 20 ms')
    await expect(store.get('b')).rejects.toThrow('1 operations already wait for the server (maxPending 1)')
    held.answerOne()
    await new Promise((resolve) => setImmediate(resolve))
    const next = store.get('c')
    held.answerOne()
    expect(await next).toBe('v')
  })

  it('turns a client that throws instead of rejecting into a RedisStoreError, and does not count it as waiting', { timeout: BOUND_MS }, async () => {
    const store = redisStore(
      {
        evalsha: () => {
          throw new Error('socket gone')
        },
        eval: never,
      },
      { maxPending: 1 },
    )
    for (const key of ['a', 'b'])
      await expect(store.get(key)).rejects.toMatchObject({ name: 'RedisStoreError', message: `redisStore: get of "${key}" failed: socket gone` })
  })

  it('rejects a pipeline that answers something unexpected with a RedisStoreError', { timeout: BOUND_MS }, async () => {
    const pipeline: RedisPipelineLike = { evalsha: () => undefined, eval: () => undefined, wait: () => undefined, exec: async () => null }
    const store = redisStore({ evalsha: never, eval: never, pipeline: () => pipeline }, { durable: { replicas: 1, timeoutMs: 10 } })
    await expect(store.reserve('budget', 'r1', 1, 10, 1_000)).rejects.toMatchObject({
      name: 'RedisStoreError',
      message: expect.stringContaining('unexpected pipeline reply null'),
    })
  })

  it.each([
    ['commandTimeoutMs 0', { commandTimeoutMs: 0 }, 'redisStore: commandTimeoutMs must be a whole number of milliseconds from 1 to 2147483647, got 0'],
    [
      'commandTimeoutMs NaN',
      { commandTimeoutMs: Number.NaN },
      'redisStore: commandTimeoutMs must be a whole number of milliseconds from 1 to 2147483647, got NaN',
    ],
    [
      'commandTimeoutMs "100"',
      { commandTimeoutMs: '100' },
      'redisStore: commandTimeoutMs must be a whole number of milliseconds from 1 to 2147483647, got "100"',
    ],
    ['maxPending 0', { maxPending: 0 }, 'redisStore: maxPending must be a positive integer, got 0'],
    ['maxPending Infinity', { maxPending: Number.POSITIVE_INFINITY }, 'redisStore: maxPending must be a positive integer, got Infinity'],
  ])('refuses %s with a RangeError naming the option', (_, options, message) => {
    expect(() => redisStore({ evalsha: never, eval: never }, options as never)).toThrow(new RangeError(message))
  })
})

describe('redisSessionStore bounds: commandTimeoutMs and maxPending', () => {
  const exchange = [{ role: 'user' as const, content: 'hi' }]

  it('rejects a load, a commit and a delete the server never answers once commandTimeoutMs has passed', { timeout: BOUND_MS }, async () => {
    const sessions = redisSessionStore({ evalsha: never, eval: never }, { commandTimeoutMs: 40 })
    await expect(sessions.load('c1')).rejects.toThrow('no answer within 40 ms (commandTimeoutMs)')
    await expect(sessions.append('c1', { exchange, expectedVersion: 0 })).rejects.toThrow('no answer within 40 ms (commandTimeoutMs)')
    await expect(sessions.delete('c1')).rejects.toThrow('no answer within 40 ms (commandTimeoutMs)')
  })

  it('refuses at once, unsent, while maxPending calls wait', { timeout: BOUND_MS }, async () => {
    const held = heldClient()
    const sessions = redisSessionStore(held.client, { maxPending: 2 })
    void sessions.load('a').catch(() => undefined)
    void sessions.load('b').catch(() => undefined)
    await expect(sessions.load('c')).rejects.toThrow('2 operations already wait for the server (maxPending 2): not sent')
    expect(held.waiting).toHaveLength(2)
  })

  it.each([
    [{ commandTimeoutMs: 0 }, RangeError],
    [{ commandTimeoutMs: 'fast' }, RangeError],
    [{ maxPending: -1 }, RangeError],
    [{ maxPending: 1.5 }, RangeError],
  ])('refuses the options %o with a %o naming redisSessionStore', (options, type) => {
    expect(() => redisSessionStore({ evalsha: never, eval: never }, options as never)).toThrow(type)
    expect(() => redisSessionStore({ evalsha: never, eval: never }, options as never)).toThrow(/redisSessionStore: (commandTimeoutMs|maxPending)/)
  })
})
