import { describe, expect, it } from 'vitest'
import { memoryDurablePort } from '../../src/durable.ts'
import { Type } from 'typebox'
import { Agent, circuitBreaker, createGate, driftMonitor, memorySessionStore, memoryStore, sharedBudget, sharedRateLimit, tool } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] }

/**
 * `base` with option `key` a getter answering `first` on its first read and `later` on every read
 * after it (a getter that passes the check, then hands the code another value); `reads()` counts them.
 */
function flipping<T extends object>(base: T, key: string, first: unknown, later: unknown): { readonly options: T; readonly reads: () => number } {
  let reads = 0
  const options = Object.defineProperty(base, key, { enumerable: true, get: () => (++reads === 1 ? first : later) })
  return { options, reads: () => reads }
}

describe('Options whose getters answer one value to the check and another later', () => {
  it('createGate builds from the values it checked: runTimeoutMs read once, and the config shows that value', async () => {
    const { options, reads } = flipping({ providers: scripted(['fine']) }, 'runTimeoutMs', 5_000, 2 ** 31)
    const gate = createGate(options)
    expect(gate.config.runTimeoutMs).toBe(5_000)
    expect((await gate.run(ask)).value).toBe('fine')
    expect(reads()).toBe(1)
  })

  it('gate.run refuses a runTimeoutMs whose second read is out of range with a RangeError, never a timer of 2^31 ms', async () => {
    const gate = createGate({ providers: scripted(['fine']) })
    const { options } = flipping({}, 'runTimeoutMs', 5_000, 2 ** 31)
    await expect(gate.run(ask, options)).rejects.toThrow(RangeError)
  })

  it('circuitBreaker, sharedBudget, sharedRateLimit, driftMonitor and memoryDurablePort each read an option once', () => {
    const cooldown = flipping({}, 'cooldownMs', 1_000, -1)
    circuitBreaker(cooldown.options)
    expect(cooldown.reads()).toBe(1)
    const usd = flipping({ store: memoryStore(), key: 'b' }, 'usd', 5, Number.NaN)
    const budget = sharedBudget(usd.options as Parameters<typeof sharedBudget>[0])
    expect([usd.reads(), budget.usd]).toEqual([1, 5])
    const limit = flipping({ store: memoryStore(), key: 'r', windowMs: 1_000 }, 'limit', 10, -3)
    const rate = sharedRateLimit(limit.options as Parameters<typeof sharedRateLimit>[0])
    expect([limit.reads(), rate.limit]).toEqual([1, 10])
    const window = flipping({ threshold: 0.5 }, 'window', 10, 0)
    driftMonitor(createGate({ providers: scripted(['x']) }), window.options as Parameters<typeof driftMonitor>[1])
    expect(window.reads()).toBe(1)
    const runId = flipping({}, 'runId', 'run-a', '')
    expect(memoryDurablePort(runId.options as { runId: string }).runId).toBe('run-a')
    expect(runId.reads()).toBe(1)
  })

  it('tool keeps the approvalTimeoutMs it checked, never a 2^31 ms wait read later', () => {
    const base = { name: 'refund', description: 'Refund', input: Type.Object({}), execute: () => 'ok', needsApproval: true }
    const timeout = flipping(base, 'approvalTimeoutMs', 60_000, 2 ** 31)
    const refund = tool(timeout.options as Parameters<typeof tool>[0])
    expect([timeout.reads(), refund.approvalTimeoutMs]).toEqual([1, 60_000])
  })
})

/** An options object that is a Proxy throwing on every trap: its keys cannot even be listed. */
const trapping = (): object =>
  new Proxy(
    {},
    Object.fromEntries(
      ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf'].map((trap) => [
        trap,
        () => {
          throw new Error('trap')
        },
      ]),
    ),
  )

describe('Options that are a Proxy throwing on every trap', () => {
  it("every factory refuses them with a TypeError naming it, never the trap's own error", () => {
    const base = { name: 'refund', description: 'Refund', input: Type.Object({}), execute: () => 'ok' }
    const factories: readonly [string, () => unknown][] = [
      ['createGate', () => createGate(trapping() as never)],
      ['Agent.create', () => Agent.create(trapping() as never)],
      ['Agent.reliability', () => Agent.create({ provider: scripted([]) }).reliability(trapping() as never)],
      ['circuitBreaker', () => circuitBreaker(trapping() as never)],
      ['memoryStore', () => memoryStore(trapping() as never)],
      ['tool', () => tool(trapping() as typeof base)],
    ]
    for (const [label, make] of factories) {
      expect(make).toThrow(TypeError)
      expect(make).toThrow(new RegExp(`^${label}: `))
    }
  })

  it('gate.run, gate.stream, agent.run and agent.session refuse them as run options with a TypeError naming the call', async () => {
    const gate = createGate({ providers: scripted(['fine']) })
    await expect(gate.run(ask, trapping() as never)).rejects.toThrow(/^gate\.run: the options' keys could not be read: trap$/)
    expect(() => gate.stream(ask, trapping() as never)).toThrow(/^gate\.stream: /)
    const agent = Agent.create({ provider: scripted(['fine']), sessions: memorySessionStore() }).build()
    await expect(agent.run('hi', trapping() as never)).rejects.toThrow(/^agent\.run: /)
    await expect(agent.session('s', trapping() as never)).rejects.toThrow(/^agent\.session: /)
    await expect(agent.session('s', { window: trapping() as never })).rejects.toThrow(TypeError)
  })

  it('createGate refuses one as a provider, a provider entry or a breaker with a TypeError naming it', () => {
    const made = [
      () => createGate({ providers: [trapping() as never] }),
      () => createGate({ providers: [scripted(['fine']), trapping() as never] }),
      () => createGate({ providers: scripted(['fine']), breaker: trapping() as never }),
    ]
    for (const make of made) {
      expect(make).toThrow(TypeError)
      // Named by the call that read it: createGate's providers, or the breaker's own options contract.
      expect(make).toThrow(/^(createGate: providers\[\d\] cannot be read: trap|circuitBreaker: the options' keys could not be read: trap)$/)
    }
  })
})

describe('A nested options object whose getter answers one value to the check and another later', () => {
  it('driftMonitor keeps the threshold it checked: a rate read as NaN later never silences the monitor', async () => {
    let reads = 0
    const threshold = {
      get validationFailureRate(): number {
        reads++
        return reads === 1 ? 0.5 : Number.NaN
      },
    }
    const gate = createGate({ providers: scripted(['{"a"', '{"a"']), outputSchema: Type.Object({ a: Type.Number() }), maxAttempts: 1 })
    const drift: unknown[] = []
    driftMonitor(gate, { window: 1, threshold }).drift$.subscribe((event) => drift.push(event))
    await gate.run(ask).catch(() => undefined)
    expect(reads).toBe(1)
    expect(drift).toHaveLength(1)
  })
})
