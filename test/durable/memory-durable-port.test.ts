import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DurableRunError, durablePort, isDurablePort, isDurableRunError, memoryDurablePort } from '../../src/durable.ts'
import { isProviderError, ProviderError } from '../../src/index.ts'

/** Runs `body` on a port, then again on a port over the same journal: a crash and its resume. */
async function twice<T>(body: (port: ReturnType<typeof memoryDurablePort>) => Promise<T>): Promise<{ first: T; replay: T; journal: string[] }> {
  const journal: string[] = []
  const first = await body(memoryDurablePort({ runId: 'run-1', journal }))
  const replay = await body(memoryDurablePort({ runId: 'run-1', journal }))
  return { first, replay, journal }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

describe('memoryDurablePort', () => {
  it('runs a finished step once and answers its journaled value on replay', async () => {
    let effects = 0
    const { first, replay, journal } = await twice((port) =>
      port.step('charge', () => {
        effects++
        return { charged: 42, ids: ['a', 'b'] }
      }),
    )
    expect(effects).toBe(1)
    expect(first).toEqual({ charged: 42, ids: ['a', 'b'] })
    expect(replay).toEqual(first)
    expect(journal).toHaveLength(1)
  })

  it('runs the steps past the journal on resume, and only those', async () => {
    const journal: string[] = []
    const ran: string[] = []
    const step = (name: string) => () => {
      ran.push(name)
      return name
    }
    const crashed = memoryDurablePort({ runId: 'r', journal })
    await crashed.step('one', step('one'))
    const resumed = memoryDurablePort({ runId: 'r', journal })
    expect(await resumed.step('one', step('one'))).toBe('one')
    expect(await resumed.step('two', step('two'))).toBe('two')
    expect(ran).toEqual(['one', 'two'])
  })

  it('answers the same outcome on the first run as on replay, for any JSON value', async () => {
    const outcome = (port: ReturnType<typeof memoryDurablePort>, value: unknown) =>
      port
        .step('value', () => value)
        .then(
          (v) => ({ ok: true as const, v }),
          (e: unknown) => ({ ok: false as const, e: e instanceof TypeError ? e.message : e }),
        )
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const { first, replay } = await twice((port) => outcome(port, value))
        expect(replay).toEqual(first)
        // A value with a `__proto__` key (fast-check writes some) is refused on both runs alike; any other is answered as JSON writes it.
        if (first.ok) expect(first.v).toEqual(JSON.parse(JSON.stringify(value)))
        else expect(JSON.stringify(value)).toMatch(/"__proto__"|"constructor"|\[{256}/)
      }),
    )
  })

  it('refuses on the first execution a value its replay would refuse: a __proto__ key', async () => {
    const value = JSON.parse('{"a":{"__proto__":{"polluted":true}}}')
    const { first, replay } = await twice((port) => rejection(port.step('value', () => value)))
    expect(first).toBeInstanceOf(TypeError)
    expect((first as Error).message).toContain('has a "__proto__" key')
    expect((replay as Error).message).toBe((first as Error).message)
  })

  it('answers undefined for a step that returned nothing, on replay too', async () => {
    const { first, replay } = await twice((port) => port.step('void', () => undefined))
    expect(first).toBeUndefined()
    expect(replay).toBeUndefined()
  })

  it('rebuilds a journaled ProviderError with its kind, status, code, retry-after and provider', async () => {
    let calls = 0
    const { first, replay } = await twice((port) =>
      rejection(
        port.step('call', () => {
          calls++
          throw new ProviderError('slow down', { kind: 'rate-limit', status: 429, code: 'rate_limit', retryAfterMs: 1500, provider: 'openai' })
        }),
      ),
    )
    expect(calls).toBe(1)
    for (const error of [first, replay]) {
      expect(isProviderError(error)).toBe(true)
      expect(error).toBeInstanceOf(ProviderError)
      expect(error).toMatchObject({ message: 'slow down', kind: 'rate-limit', status: 429, code: 'rate_limit', retryAfterMs: 1500, provider: 'openai' })
    }
  })

  it('rebuilds any other error with its class, name and message', async () => {
    class PaymentDeclined extends Error {
      override name = 'PaymentDeclined'
    }
    const { first, replay } = await twice(async (port) => [
      await rejection(port.step('type', () => Promise.reject(new TypeError('bad amount')))),
      await rejection(port.step('custom', () => Promise.reject(new PaymentDeclined('card declined')))),
    ])
    expect(replay[0]).toBeInstanceOf(TypeError)
    expect((replay[0] as Error).message).toBe('bad amount')
    expect(replay[1]).toBeInstanceOf(Error)
    expect(replay[1]).toMatchObject({ name: 'PaymentDeclined', message: 'card declined' })
    expect(first[1]).toMatchObject({ name: 'PaymentDeclined', message: 'card declined' })
  })

  it('journals a value JSON cannot write as the step failing with a TypeError', async () => {
    const error = await rejection(memoryDurablePort({ runId: 'r' }).step('big', () => 10n))
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toContain('cannot be journaled as JSON')
  })

  it('refuses a step name used twice in one run, before running it', async () => {
    const port = memoryDurablePort({ runId: 'r' })
    await port.step('refund', () => 1)
    let ran = false
    const error = await rejection(
      port.step('refund', () => {
        ran = true
      }),
    )
    expect(isDurableRunError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'step-reused', step: 'refund', runId: 'r' })
    expect(ran).toBe(false)
    expect((await rejection(port.sleep('refund', 0))) as DurableRunError).toMatchObject({ kind: 'step-reused' })
  })

  it('refuses an empty or overlong step name and a sleep that is no duration', async () => {
    const port = memoryDurablePort({ runId: 'r' })
    expect(await rejection(port.step('', () => 1))).toMatchObject({ kind: 'invalid-step' })
    expect(await rejection(port.step('x'.repeat(257), () => 1))).toMatchObject({ kind: 'invalid-step' })
    const hostile = {
      toString: () => {
        throw new Error('no')
      },
    }
    expect(await rejection(port.step(hostile as never, () => 1))).toMatchObject({ kind: 'invalid-step', step: '(object)' })
    for (const ms of [-1, 1.5, Number.NaN, 2 ** 31]) expect(await rejection(port.sleep('nap', ms))).toBeInstanceOf(RangeError)
  })

  it('fails fast, typed, when a replay asks for steps the journal does not hold in that order', async () => {
    const journal: string[] = []
    const first = memoryDurablePort({ runId: 'r', journal })
    await first.step('tool:1:a', () => 'a')
    await first.step('tool:1:b', () => 'b')
    const changed = memoryDurablePort({ runId: 'r', journal })
    let ran = false
    const error = await rejection(
      changed.step('tool:1:b', () => {
        ran = true
      }),
    )
    expect(error).toMatchObject({ name: 'DurableRunError', kind: 'divergence', step: 'tool:1:b' })
    expect((error as Error).message).toContain('"tool:1:a" at position 0')
    expect(ran).toBe(false)
  })

  it('replays a durable sleep without waiting and checks its place', async () => {
    const journal: string[] = []
    await memoryDurablePort({ runId: 'r', journal }).sleep('backoff', 1)
    await memoryDurablePort({ runId: 'r', journal }).sleep('backoff', 2 ** 31 - 1)
    expect(await rejection(memoryDurablePort({ runId: 'r', journal }).step('other', () => 1))).toMatchObject({ kind: 'divergence' })
  })

  it.each([
    ['not JSON', '{'],
    ['another version', JSON.stringify({ v: 2, seq: 0, name: 's', ok: true })],
    ['no position', JSON.stringify({ v: 1, name: 's', ok: true })],
    ['a __proto__ key', '{"v":1,"seq":0,"name":"s","ok":true,"value":{"__proto__":{"admin":true}}}'],
    ['a constructor holding a prototype', JSON.stringify({ v: 1, seq: 0, name: 's', ok: true, value: { constructor: { prototype: {} } } })],
    ['neither outcome', JSON.stringify({ v: 1, seq: 0, name: 's', ok: 'yes' })],
    ['an unknown error kind', JSON.stringify({ v: 1, seq: 0, name: 's', ok: false, error: { class: 'ProviderError', message: 'm', kind: 'meltdown' } })],
    [
      'a status out of range',
      JSON.stringify({ v: 1, seq: 0, name: 's', ok: false, error: { class: 'ProviderError', message: 'm', kind: 'http-5xx', status: 1e6 } }),
    ],
    ['a failure without message', JSON.stringify({ v: 1, seq: 0, name: 's', ok: false, error: { class: 'Error', name: 'Error' } })],
    ['an unknown error class', JSON.stringify({ v: 1, seq: 0, name: 's', ok: false, error: { class: 'Function', message: 'm' } })],
  ])('refuses a corrupted journal entry (%s) with a typed error, without running the step', async (_what, entry) => {
    let ran = false
    const error = await rejection(
      memoryDurablePort({ runId: 'r', journal: [entry] }).step('s', () => {
        ran = true
      }),
    )
    expect(error).toBeInstanceOf(DurableRunError)
    expect(error).toMatchObject({ kind: 'corrupt-entry', runId: 'r', step: 's' })
    expect(ran).toBe(false)
  })

  it('keeps one entry per position when two ports resume one journal at once: the first outcome journaled answers both', async () => {
    const journal: string[] = []
    const a = memoryDurablePort({ runId: 'r', journal })
    const b = memoryDurablePort({ runId: 'r', journal })
    // Both run the step (neither finds it journaled); the slower one gets the faster one's outcome.
    let release: () => void = () => {}
    const slow = new Promise<void>((resolve) => {
      release = resolve
    })
    const fromB = b.step('s', async () => {
      await slow
      return 'b'
    })
    expect(await a.step('s', () => 'a')).toBe('a')
    release()
    expect(await fromB).toBe('a')
    await Promise.all([a.sleep('w', 1), b.sleep('w', 2)])
    expect(journal.map((entry) => JSON.parse(entry) as { seq: number; name: string })).toEqual([
      expect.objectContaining({ seq: 0, name: 's' }),
      expect.objectContaining({ seq: 1, name: 'w' }),
    ])
    // The journal replays whole.
    const replay = memoryDurablePort({ runId: 'r', journal })
    expect(await replay.step('s', () => 'c')).toBe('a')
    await replay.sleep('w', 1)
  })

  it('keeps "constructor" as plain data', async () => {
    const { replay } = await twice((port) => port.step('car', () => ({ constructor: 'Ferrari' })))
    expect(replay).toEqual({ constructor: 'Ferrari' })
  })

  it('is a DurablePort, and its options are checked', () => {
    expect(isDurablePort(memoryDurablePort({ runId: 'r' }))).toBe(true)
    expect(isDurablePort({ runId: 'r', step() {}, sleep() {} })).toBe(true)
    expect(isDurablePort({ runId: '', step() {}, sleep() {} })).toBe(false)
    expect(() => memoryDurablePort({ runId: '' })).toThrow(TypeError)
    expect(() => memoryDurablePort({ runId: 'r', jornal: [] } as never)).toThrow(/did you mean "journal"/)
  })
})

describe('memoryDurablePort with hostile steps', () => {
  it('journals whatever a step throws as an Error with a bounded message, the same on replay', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (thrown) => {
        const { first, replay } = await twice((port) =>
          rejection(
            port.step('throws', () => {
              throw thrown
            }),
          ),
        )
        expect(first).toBeInstanceOf(Error)
        expect((first as Error).message.length).toBeLessThanOrEqual(4096)
        expect(replay).toEqual(first)
        expect((replay as Error).name).toBe((first as Error).name)
      }),
      { numRuns: 200 },
    )
  })

  it('bounds a huge error message in the journal', async () => {
    const { journal, replay } = await twice((port) => rejection(port.step('huge', () => Promise.reject(new Error('x'.repeat(100_000))))))
    expect((replay as Error).message).toHaveLength(4096)
    expect(journal[0]?.length).toBeLessThan(5000)
  })

  it('survives an error whose message getter throws', async () => {
    const hostile = Object.defineProperty(new Error('hidden'), 'message', {
      get() {
        throw new Error('no')
      },
    })
    const { first, replay } = await twice((port) => rejection(port.step('getter', () => Promise.reject(hostile))))
    expect(first).toBeInstanceOf(Error)
    expect(replay).toEqual(first)
  })
})

describe('durablePort', () => {
  it('refuses a step the engine fails to run or journal as engine-failed, with the engine error as cause', async () => {
    const down = new Error('journal unreachable')
    const port = durablePort({ runId: 'r', run: () => Promise.reject(down), sleep: async () => {} })
    let ran = false
    const error = await rejection(
      port.step('s', () => {
        ran = true
      }),
    )
    expect(error).toMatchObject({ name: 'DurableRunError', kind: 'engine-failed', step: 's', cause: down })
    expect(ran).toBe(false)
  })

  it('reads an entry an engine hands back as an object, and refuses one of another step', async () => {
    const journaled = { v: 1, seq: 0, name: 's', ok: true, value: { a: 1 } }
    expect(await durablePort({ runId: 'r', run: async () => journaled, sleep: async () => {} }).step('s', () => 0)).toEqual({ a: 1 })
    const other = durablePort({ runId: 'r', run: async () => ({ ...journaled, name: 't' }), sleep: async () => {} })
    expect(await rejection(other.step('s', () => 0))).toMatchObject({ kind: 'divergence' })
  })

  it('answers an entry of another run from an engine’s journal (a fork of a run reads its parent’s), where a memory journal refuses it', async () => {
    const parent = { v: 1, runId: 'parent', seq: 0, name: 's', ok: true, value: 'journaled by the parent' }
    expect(await durablePort({ runId: 'fork', run: async () => parent, sleep: async () => {} }).step('s', () => 0)).toBe('journaled by the parent')
    const error = await rejection(memoryDurablePort({ runId: 'fork', journal: [JSON.stringify(parent)] }).step('s', () => 0))
    expect(error).toMatchObject({ name: 'DurableRunError', kind: 'divergence', step: 's' })
  })

  it('runs a step’s fn once when the engine calls its action again (a retry of its own), answering the first outcome', async () => {
    let runs = 0
    const calls: unknown[] = []
    const retrying = durablePort({
      runId: 'r',
      run: async (_name, action) => {
        calls.push(await action())
        calls.push(await action())
        return calls[1]
      },
      sleep: async () => {},
    })
    expect(await retrying.step('refund', () => ++runs)).toBe(1)
    expect(runs).toBe(1)
    expect(calls[0]).toBe(calls[1])
  })

  it('reads an entry an engine hands back as an object once: a getter answering otherwise on a second read cannot slip a __proto__ key past the check', async () => {
    let reads = 0
    const flipping = {
      v: 1,
      seq: 0,
      name: 's',
      ok: true,
      get value() {
        reads++
        return reads === 1 ? { safe: 1 } : JSON.parse('{"__proto__": {"polluted": true}}')
      },
    }
    const value: unknown = await durablePort({ runId: 'r', run: async () => flipping, sleep: async () => {} }).step('s', () => 0)
    expect(value).toEqual({ safe: 1 })
    expect(Object.hasOwn(value as object, '__proto__')).toBe(false)
    expect(reads).toBe(1)
  })

  it('refuses as corrupt-entry an entry object whose getter throws, or a proxy that cannot list its keys', async () => {
    const throwing = {
      v: 1,
      seq: 0,
      name: 's',
      ok: true,
      get value(): unknown {
        throw new Error('getter boom')
      },
    }
    const proxy = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('ownKeys boom')
        },
      },
    )
    for (const entry of [throwing, proxy]) {
      const error = await rejection(durablePort({ runId: 'r', run: async () => entry, sleep: async () => {} }).step('s', () => 0))
      expect(error).toMatchObject({ name: 'DurableRunError', kind: 'corrupt-entry', step: 's' })
    }
  })

  it('refuses a sleep the engine fails (a throw, a rejection) as engine-failed, with the engine error as cause', async () => {
    const down = new Error('timer service down')
    const sleeps = [
      () => {
        throw down
      },
      () => Promise.reject(down),
    ]
    for (const sleep of sleeps) {
      const error = await rejection(durablePort({ runId: 'r', run: async () => undefined, sleep }).sleep('w', 1))
      expect(error).toMatchObject({ name: 'DurableRunError', kind: 'engine-failed', step: 'w', cause: down })
    }
    // A replayed sleep out of place stays the journal's own refusal.
    const journal = [JSON.stringify({ v: 1, seq: 0, name: 'other', ok: true })]
    expect(await rejection(memoryDurablePort({ runId: 'r', journal }).sleep('w', 1))).toMatchObject({ kind: 'divergence', step: 'w' })
  })
})
