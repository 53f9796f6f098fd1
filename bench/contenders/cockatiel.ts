import { ConstantBackoff, fallback, handleWhen, handleWhenResult, retry, wrap } from 'cockatiel'
import { Compile } from 'typebox/compile'
import { LookupArgs, Refund, USER_MESSAGE, type Scenario } from '../scenarios.ts'
import { isRateLimited } from '../support/failover.ts'
import type { Contender, Runnable } from './contender.ts'
import { floorCheck, REJECTED, stubModel, type FloorMessage, type StubModel } from './floor.ts'

/**
 * cockatiel's retry policy around one attempt of the floor's work (the same stub model, parse, check
 * and feedback), so the row shows the policy's overhead. A rejection is a result cockatiel retries on
 * (`handleWhenResult`); a 429 goes to the second model through a `fallback` policy. Backoff is
 * `ConstantBackoff(0)`; cockatiel still waits on a `setTimeout(0)` between attempts, which is part
 * of its cost.
 */
export const cockatielContender: Contender = {
  name: 'cockatiel retry + hand-written call',
  prepare(scenario: Scenario): Runnable {
    const primary = stubModel(scenario.primary)
    const secondary = stubModel(scenario.secondary ?? scenario.primary)
    const validator = scenario.id === 'd' ? Compile(LookupArgs) : Compile(Refund)
    const feedbackRole = scenario.id === 'd' ? 'tool' : 'user'
    // One conversation per benchmarked call; the policies are built once, as a user would.
    let messages: FloorMessage[] = []
    const attempt = (model: StubModel) => async (): Promise<unknown> => floorCheck(model(messages), validator, feedbackRole, messages)
    const retryRejected = retry(
      handleWhenResult((r) => r === REJECTED),
      { maxAttempts: 2, backoff: new ConstantBackoff(0) },
    )
    const first = attempt(primary.model)
    const second = attempt(secondary.model)
    const policy = wrap(
      fallback(handleWhen(isRateLimited), () => retryRejected.execute(second)),
      retryRejected,
    )
    return {
      ...(scenario.id === 'e' ? { note: 'fallback policy to the second provider' } : {}),
      call: async () => {
        primary.reset()
        secondary.reset()
        messages = [{ role: 'user', content: USER_MESSAGE }]
        const value = await policy.execute(first)
        if (value === REJECTED) throw new Error('no valid answer after 3 attempts')
        return value
      },
    }
  },
}
