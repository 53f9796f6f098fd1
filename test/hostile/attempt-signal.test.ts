import { getEventListeners } from 'node:events'
import { describe, expect, it } from 'vitest'
import {
  circuitBreaker,
  createGate,
  memoryStore,
  sharedBudget,
  type Middleware,
  type ModelRequest,
  type ModelResponse,
  type Provider,
} from '../../src/index.ts'
import { expectNoUnhandledRejections } from '../support/no-unhandled-rejections.ts'
import { ask } from '../support/schemas.ts'

// The attempt's signal under a deadline is made only when someone reads `request.signal`. Whoever
// reads it, whenever (before, during, after the attempt; through a copy a middleware made), gets a
// real AbortSignal that keeps every promise of the deadline; whoever never reads it still has the
// attempt settled on time. Every case is bounded: a hang is a defect.

const BOUND_MS = 3_000
const answer: ModelResponse = { content: 'ok', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
const never = <T>(): Promise<T> => new Promise<T>(() => {})
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

function provider(complete: (request: ModelRequest) => Promise<ModelResponse>): Provider {
  return { name: 'p', complete }
}

expectNoUnhandledRejections()

describe("the attempt's own signal under timeoutMs", () => {
  it('settles an attempt whose provider never answers and never reads its signal, and the policies hear the timeout', { timeout: BOUND_MS }, async () => {
    const store = memoryStore()
    const breaker = circuitBreaker({ store, failureThreshold: 2, cooldownMs: 60_000 })
    const budget = sharedBudget({ store, key: 'b', usd: 1, reserveUsd: 0.1 })
    const gate = createGate({ providers: provider(() => never()), timeoutMs: 30, breaker, budget, maxAttempts: 1 })
    for (let i = 0; i < 2; i++) await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'timeout' })
    // Two timeouts are two failures: the breaker opened; the budget let go of both reservations.
    expect((await breaker.state('p')).state).toBe('open')
    const after = await store.reserve('b', 'probe', 0.95, 1, 60_000)
    expect(after).toMatchObject({ granted: true, spent: 0, held: 0 })
  })

  it('gives a provider that reads its signal mid-call a real signal that aborts at the deadline with kind timeout', { timeout: BOUND_MS }, async () => {
    let seen: AbortSignal | undefined
    const gate = createGate({
      providers: provider(async (request) => {
        await pause(5)
        seen = request.signal
        return never()
      }),
      timeoutMs: 40,
      maxAttempts: 1,
    })
    const error = await gate.run(ask('x')).catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'timeout' })
    expect(seen).toBeInstanceOf(AbortSignal)
    expect(seen?.aborted).toBe(true)
    expect(seen?.reason).toMatchObject({ kind: 'timeout', provider: 'p' })
  })

  it('gives a signal read after the attempt timed out already aborted, and the same signal on every read', { timeout: BOUND_MS }, async () => {
    let held: ModelRequest | undefined
    const gate = createGate({
      providers: provider((request) => {
        held = request
        return never()
      }),
      timeoutMs: 20,
      maxAttempts: 1,
    })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'timeout' })
    const late = held?.signal
    expect(late?.aborted).toBe(true)
    expect(late?.reason).toMatchObject({ kind: 'timeout' })
    expect(held?.signal).toBe(late)
  })

  it("aborts a read signal with the run's own signal, and leaves no listener on it once runs end", { timeout: BOUND_MS }, async () => {
    const run = new AbortController()
    const reads: AbortSignal[] = []
    const gate = createGate({
      providers: provider((request) => {
        reads.push(request.signal as AbortSignal)
        return Promise.resolve(answer)
      }),
      timeoutMs: 10_000,
    })
    for (let i = 0; i < 50; i++) await gate.run(ask('x'), { signal: run.signal })
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0)
    const stuck = createGate({ providers: provider((request) => (reads.push(request.signal as AbortSignal), never())), timeoutMs: 10_000 })
    const pending = stuck.run(ask('x'), { signal: run.signal }).catch((e: unknown) => e)
    await pause(5)
    run.abort(new Error('user left'))
    expect(await pending).toMatchObject({ kind: 'aborted' })
    expect(reads.at(-1)?.aborted).toBe(true)
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0)
  })

  it('keeps the signal in the copy a middleware passes on, and times out a provider that ignores it', { timeout: BOUND_MS }, async () => {
    let received: ModelRequest | undefined
    const copying: Middleware = (ctx, next) => next({ ...ctx.request, maxTokens: 5 })
    const gate = createGate({
      providers: provider((request) => {
        received = request
        return never()
      }),
      middleware: [copying],
      timeoutMs: 30,
      maxAttempts: 1,
    })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'timeout' })
    expect(received?.maxTokens).toBe(5)
    expect(received?.signal).toBeInstanceOf(AbortSignal)
    expect(received?.signal?.aborted).toBe(true)
    expect(Object.getOwnPropertySymbols(received as object)).toEqual([])
  })

  it('lets a middleware waiting on next() hear the timeout even when the provider ignores its signal', { timeout: BOUND_MS }, async () => {
    const heard: unknown[] = []
    const listening: Middleware = (_ctx, next) =>
      next().catch((error: unknown) => {
        heard.push(error)
        throw error
      })
    const gate = createGate({ providers: provider(() => never()), middleware: [listening], timeoutMs: 30, maxAttempts: 1 })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'timeout' })
    await pause(5)
    expect(heard).toHaveLength(1)
    expect(heard[0]).toMatchObject({ kind: 'timeout' })
  })

  it('hands user code a frozen request whose copies and serialisations carry no library internals', { timeout: BOUND_MS }, async () => {
    const seen: { frozen: boolean; keys: string[]; json: string; copyKeys: string[]; threw: boolean }[] = []
    const inspecting: Middleware = (ctx, next) => {
      let threw = false
      try {
        ;(ctx.request as { model?: string }).model = 'hijacked'
      } catch {
        threw = true
      }
      seen.push({
        frozen: Object.isFrozen(ctx.request),
        keys: Object.keys(ctx.request),
        json: JSON.stringify(ctx.request),
        copyKeys: Reflect.ownKeys({ ...ctx.request }).map(String),
        threw,
      })
      return next()
    }
    let sent: ModelRequest | undefined
    const gate = createGate({
      providers: provider((request) => {
        sent = request
        return Promise.resolve(answer)
      }),
      middleware: [inspecting],
      timeoutMs: 1_000,
    })
    await gate.run({ ...ask('x'), model: 'm' })
    expect(seen[0]).toMatchObject({ frozen: true, threw: true })
    expect(seen[0]?.keys).toContain('signal')
    expect(JSON.parse(seen[0]?.json ?? '{}')).toMatchObject({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
    expect(seen[0]?.copyKeys.every((k) => !k.startsWith('Symbol('))).toBe(true)
    expect(sent?.model).toBe('m')
  })

  it('answers a read of the signal of a request a hostile getter replaced without breaking the run', { timeout: BOUND_MS }, async () => {
    const replacing: Middleware = (ctx, next) =>
      next(
        Object.defineProperty({ ...ctx.request }, 'signal', {
          enumerable: true,
          get() {
            throw new Error('no signal for you')
          },
        }) as ModelRequest,
      )
    const gate = createGate({ providers: provider(() => Promise.resolve(answer)), middleware: [replacing], timeoutMs: 1_000, maxAttempts: 1 })
    const outcome = await gate.run(ask('x')).then(
      (r) => ({ ok: r.response.content }),
      (e: unknown) => ({ error: e }),
    )
    // The gate reads the signal to race the call: a getter that throws fails the attempt like a throwing provider, typed.
    if ('error' in outcome) expect(outcome.error).toMatchObject({ kind: expect.any(String) })
    else expect(outcome.ok).toBe('ok')
  })

  it("lets go of the budget's reservation the moment the run is aborted, though the provider never answers", { timeout: BOUND_MS }, async () => {
    const store = memoryStore()
    const budget = sharedBudget({ store, key: 'b', usd: 1, reserveUsd: 0.5 })
    for (const timeoutMs of [undefined, 10_000]) {
      const run = new AbortController()
      const gate = createGate({ providers: provider(() => never()), budget, ...(timeoutMs === undefined ? {} : { timeoutMs }) })
      const pending = gate.run(ask('x'), { signal: run.signal }).catch((e: unknown) => e)
      await pause(5)
      run.abort(new Error('user left'))
      expect(await pending).toMatchObject({ kind: 'aborted' })
      // Nothing held any more: the whole budget can be reserved again.
      expect(await store.reserve('b', `probe-${timeoutMs}`, 1, 1, 60_000)).toMatchObject({ granted: true, held: 0 })
      await store.settle('b', `probe-${timeoutMs}`, 0)
    }
  })
})
