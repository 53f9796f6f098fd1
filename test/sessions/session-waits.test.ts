import { describe, expect, it, vi } from 'vitest'
import { Agent, isReliabilityFailFastError, isSessionCommitError, memorySessionStore, type Message, type SessionStore } from '../../src/index.ts'
import { DEFAULT_LOAD_TIMEOUT_MS } from '../../src/agent/stored-conversation.ts'
import { scripted } from '../../src/providers/index.ts'
import { windowHistory } from '../../src/sessions/index.ts'

const never = (): Promise<never> => new Promise(() => {})
const HOSTILE_DURATIONS: readonly unknown[] = [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '100', 2 ** 31, 1.5]

/** A memory store whose chosen methods never answer. */
function stalled(methods: { load?: boolean; append?: boolean; delete?: boolean }): SessionStore & { inner: SessionStore } {
  const inner = memorySessionStore()
  return {
    inner,
    load: methods.load === true ? never : (id) => inner.load(id),
    append: methods.append === true ? never : (id, request) => inner.append(id, request),
    delete: methods.delete === true ? never : (id) => inner.delete(id),
  }
}

const history = (n: number): Message[] =>
  Array.from({ length: n }, (_, i): Message => (i % 2 === 0 ? { role: 'user', content: `q${i}` } : { role: 'assistant', content: `a${i}` }))

describe('a stored session under the run deadline', () => {
  it('fails with kind run-timeout when the store’s append never answers, and stores nothing', async () => {
    const store = stalled({ append: true })
    const agent = Agent.create({ provider: scripted(['hello']), model: 'm', sessions: store }).build()
    const session = await agent.session('customer-42')
    const error = await session.run('hi', { runTimeoutMs: 50 }).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'run-timeout', sessionId: 'customer-42' })
    // The accepted run is still carried, as for any commit that did not land.
    expect(isSessionCommitError(error) && error.value).toBe('hello')
    expect(session.history).toEqual([])
    expect(session.version).toBe(0)
    expect(await store.inner.load('customer-42')).toEqual({ messages: [], version: 0 })
  })

  it('bounds the commit by the agent’s reliability runTimeoutMs too', async () => {
    const store = stalled({ append: true })
    const agent = Agent.create({ provider: scripted(['hello']), model: 'm', sessions: store })
      .reliability({ runTimeoutMs: 50 })
      .build()
    const session = await agent.session('customer-42')
    await expect(session.run('hi')).rejects.toMatchObject({ kind: 'run-timeout' })
    expect(session.history).toEqual([])
  })

  it('bounds the commit of a streamed run', async () => {
    const store = stalled({ append: true })
    const agent = Agent.create({ provider: scripted(['hello']), model: 'm', sessions: store }).build()
    const session = await agent.session('customer-42')
    await expect(session.stream('hi', { runTimeoutMs: 50 }).result).rejects.toMatchObject({ kind: 'run-timeout' })
    expect(session.history).toEqual([])
  })

  it('commits as before when the store answers within the deadline', async () => {
    const store = memorySessionStore()
    const agent = Agent.create({ provider: scripted(['hello']), model: 'm', sessions: store }).build()
    const session = await agent.session('customer-42')
    expect(await session.run('hi', { runTimeoutMs: 60_000 })).toBe('hello')
    expect((await store.load('customer-42')).version).toBe(1)
  })
})

describe('agent.session load', () => {
  it('rejects session.delete() with kind timeout when the store’s delete never answers within loadTimeoutMs', async () => {
    const store = stalled({ delete: true })
    const agent = Agent.create({ provider: scripted(['hello']), model: 'm', sessions: store }).build()
    const session = await agent.session('customer-42', { loadTimeoutMs: 50 })
    await session.run('hi')
    const error = await session.delete().catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'timeout' })
    expect((error as Error).message).toContain('delete')
    // Nothing was forgotten locally either: the caller can try again.
    expect(session.version).toBe(1)
  })

  it('rejects with kind timeout when the store’s load never answers within loadTimeoutMs', async () => {
    const agent = Agent.create({ provider: scripted(['x']), model: 'm', sessions: stalled({ load: true }) }).build()
    const error = await agent.session('customer-42', { loadTimeoutMs: 50 }).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'timeout' })
    expect((error as Error).message).toContain('session "customer-42": the store\'s load did not answer within loadTimeoutMs (50 ms)')
  })

  it('bounds reading the conversation again after another run committed, and the run still answers', async () => {
    const inner = memorySessionStore()
    let loads = 0
    const store: SessionStore = {
      load: (id) => (++loads === 1 ? inner.load(id) : never()),
      append: (id, request) => inner.append(id, request),
      delete: (id) => inner.delete(id),
    }
    const agent = Agent.create({ provider: scripted(['hello']), model: 'm', sessions: store }).build()
    const session = await agent.session('c', { loadTimeoutMs: 50 })
    // Another process commits meanwhile: this session's commit lands on version 2 and reads the store again.
    await inner.append('c', { exchange: history(2), expectedVersion: 0, onConflict: 'fail' })
    const result = await session.runDetailed('hi')
    expect(result.session).toMatchObject({ version: 2, staleBy: 1 })
    expect(loads).toBe(2)
    expect((await inner.load('c')).version).toBe(2)
  })

  it('waits 30 seconds by default', () => {
    expect(DEFAULT_LOAD_TIMEOUT_MS).toBe(30_000)
  })

  it('bounds the default load with its documented default, on fake timers', async () => {
    vi.useFakeTimers()
    try {
      const agent = Agent.create({ provider: scripted(['x']), model: 'm', sessions: stalled({ load: true }) }).build()
      const opened = agent.session('customer-42').catch((e: unknown) => e)
      await vi.advanceTimersByTimeAsync(DEFAULT_LOAD_TIMEOUT_MS)
      expect(await opened).toMatchObject({ kind: 'timeout' })
    } finally {
      vi.useRealTimers()
    }
  })

  it.each(HOSTILE_DURATIONS.map((value) => [String(value), value]))('refuses loadTimeoutMs = %s before the store is read', async (_shown, value) => {
    const store = stalled({})
    const load = vi.spyOn(store, 'load')
    const agent = Agent.create({ provider: scripted(['x']), model: 'm', sessions: store }).build()
    await expect(agent.session('customer-42', { loadTimeoutMs: value as number })).rejects.toThrow(
      /agent\.session: loadTimeoutMs must be a whole number of milliseconds/,
    )
    expect(load).not.toHaveBeenCalled()
  })

  it('refuses misspelt session and window options with "did you mean"', async () => {
    const agent = Agent.create({ provider: scripted(['x']), model: 'm' }).build()
    await expect(agent.session('c', { onconflict: 'fail' } as never)).rejects.toThrow(
      /agent\.session: unknown option "onconflict" \(did you mean "onConflict"\?\)/,
    )
    await expect(agent.session('c', { window: { maxMesages: 4 } } as never)).rejects.toThrow(
      /window: unknown option "maxMesages" \(did you mean "maxMessages"\?\)/,
    )
    await expect(agent.session('c', { window: { maxMessages: 0 } })).rejects.toThrow(RangeError)
    await expect(agent.session('c', { onConflict: 'merge' as never })).rejects.toThrow(/onConflict must be one of "append", "fail"/)
  })

  it('refuses a misspelt option of session.run with "did you mean"', async () => {
    const provider = scripted(['x'])
    const session = await Agent.create({ provider, model: 'm' }).build().session('c')
    await expect(session.run('hi', { runTimoutMs: 5 } as never)).rejects.toThrow(/did you mean "runTimeoutMs"/)
    expect(provider.calls).toBe(0)
  })
})

describe('a session window’s estimateTokens', () => {
  const seeded = async (estimateTokens: (m: Message) => number) => {
    const store = memorySessionStore()
    await store.append('c', { exchange: history(6), expectedVersion: 0, onConflict: 'fail' })
    const provider = scripted(['never reached'])
    const agent = Agent.create({ provider, model: 'm', sessions: store }).build()
    return { provider, session: await agent.session('c', { window: { maxTokens: 100, estimateTokens } }) }
  }

  it('that throws fails the run with kind window-failed, nothing sent, the estimator’s error as the cause', async () => {
    const boom = new Error('tokenizer exploded')
    const { provider, session } = await seeded(() => {
      throw boom
    })
    const error = await session.run('hi').catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'window-failed' })
    expect((error as Error).message).toContain('window.estimateTokens threw on history message 5: tokenizer exploded')
    expect(((error as Error).cause as Error).cause).toBe(boom)
    expect(provider.calls).toBe(0)
  })

  it('that answers a promise fails the run with kind window-failed instead of sending the whole history', async () => {
    const { provider, session } = await seeded((() => Promise.resolve(1)) as never)
    await expect(session.run('hi')).rejects.toMatchObject({ kind: 'window-failed', reason: expect.stringContaining('got a promise') })
    expect(() => session.stream('hi')).toThrow(/window\.estimateTokens must answer a number synchronously/)
    expect(provider.calls).toBe(0)
  })

  it.each([Number.NaN, -1, '3', undefined])('that answers %s fails with a typed error', (tokens) => {
    expect(() => windowHistory(history(4), { maxTokens: 10, estimateTokens: () => tokens as number })).toThrow(
      /window\.estimateTokens must answer a finite number of tokens/,
    )
  })

  it('that answers numbers windows as before', () => {
    expect(windowHistory(history(6), { maxTokens: 2, estimateTokens: () => 1 }).map((m) => m.content)).toEqual(['q4', 'a5'])
  })
})
