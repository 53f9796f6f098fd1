import {
  circuitBreaker,
  ConsecutiveBreaker,
  ConstantBackoff,
  handleWhen,
  retry,
  timeout,
  TimeoutStrategy,
  wrap,
  type CircuitBreakerPolicy,
  type IPolicy,
  type RetryPolicy,
  type TimeoutPolicy,
} from 'cockatiel'
import { Compile } from 'typebox/compile'
import { LookupArgs, Refund, USER_MESSAGE, type Scenario } from '../scenarios.ts'
import { isRateLimited } from '../support/failover.ts'
import { COCKATIEL_PRODUCTION } from '../targets.ts'
import type { Contender, Runnable, Unsupported } from './contender.ts'
import { floorCheck, MAX_ATTEMPTS, REJECTED, stubModel, type FloorMessage } from './floor.ts'

/** cockatiel's production composition and its three policies, for the honesty tests. */
export interface CockatielProduction {
  /** `wrap(retry, breaker, timeout)`: retry outermost, a timeout per attempt. */
  readonly policy: IPolicy
  readonly retry: RetryPolicy
  readonly breaker: CircuitBreakerPolicy
  readonly timeout: TimeoutPolicy
}

/**
 * cockatiel's production composition, built once as a user would: `wrap(retry, circuitBreaker,
 * timeout(30_000))`. The retry re-asks on a transient error (a 429 here) and on a rejected answer
 * (the floor's `REJECTED` result, after which the conversation carries the feedback), up to the
 * floor's 3 attempts; backoff is `ConstantBackoff(0)`, as every bench row zeroes its delays, and
 * cockatiel still waits on a `setTimeout(0)` before each retry, which is part of its cost. The breaker
 * opens after 5 consecutive transient errors (a rejected answer is a result, never a breaker failure,
 * as in the gate) and half-opens after 30 s. The timeout is aggressive: an attempt settles at 30 s
 * even if the call ignores its signal, as the gate's `timeoutMs` does.
 */
export function cockatielProduction(): CockatielProduction {
  const transient = handleWhen(isRateLimited)
  const retryPolicy = retry(
    transient.orWhenResult((r) => r === REJECTED),
    { maxAttempts: MAX_ATTEMPTS - 1, backoff: new ConstantBackoff(0) },
  )
  const breaker = circuitBreaker(transient, { halfOpenAfter: 30_000, breaker: new ConsecutiveBreaker(5) })
  const timeoutPolicy = timeout(30_000, TimeoutStrategy.Aggressive)
  return { policy: wrap(retryPolicy, breaker, timeoutPolicy), retry: retryPolicy, breaker, timeout: timeoutPolicy }
}

/**
 * The anchor row of the production configuration: {@link cockatielProduction} around one attempt of
 * the floor's work (the same stub model, parse, check and feedback). It has no fallback, so the
 * failover of (e) is left to the plain cockatiel row.
 */
export const cockatielProductionContender: Contender = {
  name: COCKATIEL_PRODUCTION,
  prepare(scenario: Scenario): Runnable | Unsupported {
    if (scenario.id === 'e') return { unsupported: 'n/a: no fallback in this composition (see "cockatiel retry + hand-written call" for failover)' }
    const primary = stubModel(scenario.primary)
    const validator = scenario.id === 'd' ? Compile(LookupArgs) : Compile(Refund)
    const feedbackRole = scenario.id === 'd' ? 'tool' : 'user'
    // One conversation per benchmarked call; the policies are built once.
    let messages: FloorMessage[] = []
    const attempt = async (): Promise<unknown> => floorCheck(primary.model(messages), validator, feedbackRole, messages)
    const { policy } = cockatielProduction()
    return {
      ...(scenario.id === 'b' || scenario.id === 'c' || scenario.id === 'd' ? { note: 'cockatiel waits a setTimeout(0) before its retry' } : {}),
      call: async () => {
        primary.reset()
        messages = [{ role: 'user', content: USER_MESSAGE }]
        const value = await policy.execute(attempt)
        if (value === REJECTED) throw new Error(`no valid answer after ${MAX_ATTEMPTS} attempts`)
        return value
      },
    }
  },
}
