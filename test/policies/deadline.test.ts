import { getEventListeners } from 'node:events'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { isProviderError, ProviderError, type AttemptContext, type ModelResponse } from '../../src/index.ts'
import { abortReason, deadlineStage, raceAbort, signalReason, sleep, withSignal } from '../../src/policies/deadline/index.ts'
import { throughChain, type TestTerminal } from '../support/chain-attempt.ts'

const response: ModelResponse = { content: 'ok', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'end' }
const never = <T>(): Promise<T> => new Promise<T>(() => undefined)

afterEach(() => {
  vi.useRealTimers()
})

describe('raceAbort', () => {
  it('settles like the work and leaves no abort listener behind', async () => {
    const controller = new AbortController()
    await expect(raceAbort(Promise.resolve(7), controller.signal)).resolves.toBe(7)
    await expect(raceAbort(Promise.reject(new Error('no')), controller.signal)).rejects.toThrow('no')
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0)
  })

  it('rejects at once with a typed aborted error when the signal aborts, even if the work never settles', async () => {
    const controller = new AbortController()
    const onAbort = vi.fn()
    const pending = raceAbort(never(), controller.signal, onAbort)
    controller.abort(new Error('user left'))
    const error = await pending.catch((e: unknown) => e)
    expect(isProviderError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'aborted', cause: expect.objectContaining({ message: 'user left' }) })
    expect(onAbort).toHaveBeenCalledOnce()
  })

  it('rejects with a ProviderError reason as it is (a deadline aborts with kind timeout)', async () => {
    const reason = new ProviderError('too slow', { kind: 'timeout' })
    const error = await raceAbort(never(), AbortSignal.abort(reason)).catch((e: unknown) => e)
    expect(error).toBe(reason)
    expect(abortReason(AbortSignal.abort(reason))).toBe(reason)
  })

  it("can reject with the signal's own reason, as fetch does", async () => {
    const reason = new Error('stop')
    await expect(raceAbort(never(), AbortSignal.abort(reason), undefined, signalReason)).rejects.toBe(reason)
    const plain = signalReason(new AbortController().signal)
    expect(plain).toMatchObject({ name: 'AbortError' })
  })
})

describe('sleep', () => {
  it("honours a delay beyond setTimeout's 2^31 ms limit instead of firing at once", async () => {
    vi.useFakeTimers()
    let done = false
    const long = 2 ** 31 + 5_000
    void sleep(long).then(() => {
      done = true
    })
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1)
    expect(done).toBe(false)
    await vi.advanceTimersByTimeAsync(5_000)
    expect(done).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(done).toBe(true)
  })

  it('clears its timer when aborted', async () => {
    vi.useFakeTimers()
    const controller = new AbortController()
    const pending = sleep(60_000, controller.signal).catch((e: unknown) => e)
    expect(vi.getTimerCount()).toBe(1)
    controller.abort()
    await expect(pending).resolves.toMatchObject({ kind: 'aborted' })
    expect(vi.getTimerCount()).toBe(0)
  })

  it('resolves at once for zero, negative and NaN delays', async () => {
    await expect(Promise.all([sleep(0), sleep(-5), sleep(Number.NaN)])).resolves.toEqual([undefined, undefined, undefined])
  })
})

describe('deadline', () => {
  const deadline = (ms: number) => (c: AttemptContext, terminal: TestTerminal) => throughChain([deadlineStage(ms)], [], c, terminal)
  const ctx = (signal?: AbortSignal): AttemptContext => ({
    runId: 'r',
    attempt: 1,
    request: { messages: [], ...(signal !== undefined ? { signal } : {}) },
    baseRequest: { messages: [] },
    provider: 'slow',
    providerIdx: 0,
    model: undefined,
    metadata: undefined,
    turn: undefined,
  })

  it('fails the attempt with kind timeout naming the provider, and aborts the signal it handed on', async () => {
    vi.useFakeTimers()
    let inner: AbortSignal | undefined
    const pending = deadline(500)(ctx(), (c) => {
      inner = c.request.signal
      return never()
    }).catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(500)
    const error = await pending
    expect(error).toMatchObject({ kind: 'timeout', provider: 'slow', message: expect.stringContaining('500 ms') })
    expect(inner?.aborted).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('passes an outer abort through as kind aborted and removes its listener', async () => {
    const outer = new AbortController()
    const pending = deadline(60_000)(ctx(outer.signal), () => never()).catch((e: unknown) => e)
    outer.abort(new Error('bye'))
    await expect(pending).resolves.toMatchObject({ kind: 'aborted' })
    expect(getEventListeners(outer.signal, 'abort')).toHaveLength(0)
  })

  it('resolves with the answer and leaves no timer that keeps the process alive, however many deadlines were met', async () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    const before = timers()
    for (let i = 0; i < 1_000; i++) await expect(deadline(1000)(ctx(), () => Promise.resolve({ response }))).resolves.toEqual({ response })
    expect(timers()).toBeLessThanOrEqual(before)
  })

  it('still fires on time when earlier deadlines of the same length were met', async () => {
    vi.useFakeTimers()
    await deadline(1000)(ctx(), () => Promise.resolve({ response }))
    const pending = deadline(1000)(ctx(), () => never()).catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(999)
    let settled = false
    void pending.then(() => {
      settled = true
    })
    await Promise.resolve()
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await pending).toMatchObject({ kind: 'timeout' })
  })

  it('still fires on time when the wall clock is set back an hour while the attempt waits', async () => {
    vi.useFakeTimers()
    const pending = deadline(777)(ctx(), () => never()).catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(100)
    // NTP corrects the clock (or a VM resumes): Date.now() goes back an hour; timers keep their own time.
    vi.setSystemTime(Date.now() - 3_600_000)
    let settled = false
    void pending.then(() => {
      settled = true
    })
    await vi.advanceTimersByTimeAsync(676)
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await pending).toMatchObject({ kind: 'timeout' })
  })
})

describe('withSignal', () => {
  it('copies a request with a lazily joined messages getter without joining it', () => {
    let reads = 0
    const lazy = Object.defineProperty({ model: 'm' }, 'messages', {
      enumerable: true,
      get() {
        reads++
        return [{ role: 'user', content: 'x' }]
      },
    }) as { model: string; messages: readonly { role: 'user'; content: string }[] }
    const signal = new AbortController().signal
    const copy = withSignal(lazy, signal)
    expect(reads).toBe(0)
    expect(copy.signal).toBe(signal)
    expect(copy.model).toBe('m')
    expect(copy.messages).toHaveLength(1)
    expect(reads).toBe(1)
  })
})
