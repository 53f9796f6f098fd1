import { ConstantBackoff, fallback, handleWhen, retry, wrap } from 'cockatiel'
import type { Scenario } from '../scenarios.ts'
import type { Contender, Runnable } from './contender.ts'
import { floorAttempt, Rejected, scenarioProviders } from './floor.ts'

/**
 * cockatiel's retry policy around the floor's single attempt (policy overhead only: the attempt
 * itself parses, checks and writes the feedback). Backoff is `ConstantBackoff(0)`; cockatiel still
 * waits on a `setTimeout(0)` between attempts, which is part of its cost.
 */
export const cockatielContender: Contender = {
  name: 'cockatiel retry + hand-written call',
  prepare(scenario: Scenario): Runnable {
    const { primary, secondary, reset } = scenarioProviders(scenario)
    const toolName = scenario.id === 'd' ? 'lookup_order' : undefined
    const first = floorAttempt(primary, toolName)
    const second = floorAttempt(secondary, toolName)
    const retryInvalid = retry(handleWhen((e) => e instanceof Rejected), { maxAttempts: 2, backoff: new ConstantBackoff(0) })
    const toSecondary = fallback(
      handleWhen((e) => (e as { status?: number }).status === 429),
      () => retryInvalid.execute(() => second.attempt()),
    )
    const policy = wrap(toSecondary, retryInvalid)
    return {
      ...(scenario.id === 'e' ? { note: 'fallback policy to the second provider' } : {}),
      call: () => {
        reset()
        first.reset()
        second.reset()
        return policy.execute(() => first.attempt())
      },
    }
  },
}
