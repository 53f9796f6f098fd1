import { BrokenCircuitError, CircuitState, TaskCancelledError } from 'cockatiel'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { cockatielProduction } from '../../bench/contenders/cockatiel-production.ts'
import { REJECTED } from '../../bench/contenders/floor.ts'
import { RATE_LIMITED } from '../../bench/scenarios.ts'

// The anchor of the production config must really be cockatiel's production composition: a retry
// that re-asks, a breaker that opens, and a 30 s timeout per attempt.
describe("the cockatiel anchor is cockatiel's production composition", () => {
  afterEach(() => vi.useRealTimers())

  it('retries a rejected answer once, then resolves with the next one', async () => {
    const { policy, retry } = cockatielProduction()
    let retries = 0
    retry.onRetry(() => retries++)
    const answers: unknown[] = [REJECTED, 'valid']
    let calls = 0
    expect(await policy.execute(async () => answers[calls++])).toBe('valid')
    expect({ calls, retries }).toEqual({ calls: 2, retries: 1 })
  })

  it('retries a 429 up to 3 attempts, and its breaker opens after 5 in a row so the next call is not made', async () => {
    const { policy, breaker } = cockatielProduction()
    let calls = 0
    const failing = async (): Promise<never> => {
      calls++
      throw RATE_LIMITED
    }
    await expect(policy.execute(failing)).rejects.toBe(RATE_LIMITED)
    expect(calls).toBe(3)
    await expect(policy.execute(failing)).rejects.toBeInstanceOf(BrokenCircuitError)
    expect({ calls, state: breaker.state }).toEqual({ calls: 5, state: CircuitState.Open })
  })

  it('never counts a rejected answer as a breaker failure', async () => {
    const { policy, breaker } = cockatielProduction()
    for (let run = 0; run < 5; run++) expect(await policy.execute(async () => REJECTED)).toBe(REJECTED)
    expect(breaker.state).toBe(CircuitState.Closed)
  })

  it('ends an attempt that never settles at 30 s, even though it ignores its signal', async () => {
    vi.useFakeTimers()
    const { policy } = cockatielProduction()
    const outcome = policy
      .execute(() => new Promise<never>(() => {}))
      .then(
        () => 'resolved',
        (error: unknown) => error,
      )
    await vi.advanceTimersByTimeAsync(29_999)
    const early = await Promise.race([outcome, Promise.resolve('pending')])
    await vi.advanceTimersByTimeAsync(1)
    expect(early).toBe('pending')
    expect(await outcome).toBeInstanceOf(TaskCancelledError)
  })
})
