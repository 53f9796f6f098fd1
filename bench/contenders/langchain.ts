import type { BaseMessage } from '@langchain/core/messages'
import type { ChatResult } from '@langchain/core/outputs'
import { StructuredOutputParser } from '@langchain/core/output_parsers'
import { RunnableBinding, RunnableRetry, type Runnable as LcRunnable, type RunnableConfig } from '@langchain/core/runnables'
import { FakeListChatModel } from '@langchain/core/utils/testing'
import type { CallbackManagerForChainRun } from '@langchain/core/callbacks/manager'
import { RATE_LIMITED, USER_MESSAGE, type Scenario } from '../scenarios.ts'
import { RefundZod } from '../support/zod-schemas.ts'
import type { Contender, Runnable, Unsupported } from './contender.ts'

type PRetry = (fn: (attempt: number) => Promise<unknown>, options: Record<string, unknown>) => Promise<unknown>

// `withRetry` uses LangChain's vendored p-retry with a 1 s minimum backoff it does not expose; the
// subclass below calls the same p-retry with `minTimeout: 0`, and is otherwise RunnableRetry.
const pRetryUrl = new URL('../../node_modules/@langchain/core/dist/utils/p-retry/index.js', import.meta.url).href
const { default: pRetry } = (await import(pRetryUrl)) as { default: PRetry }

class NoDelayRetry<I, O> extends RunnableRetry<I, O> {
  protected override async _invoke(input: I, config?: Partial<RunnableConfig>, runManager?: CallbackManagerForChainRun): Promise<O> {
    return pRetry((attempt) => RunnableBinding.prototype.invoke.call(this, input, this._patchConfigForRetry(attempt, config, runManager)), {
      onFailedAttempt: ({ error }: { error: Error }) => this.onFailedAttempt(error, input),
      retries: Math.max(this.maxAttemptNumber - 1, 0),
      randomize: true,
      minTimeout: 0,
    }) as Promise<O>
  }
}

/** A chat model that always answers with the 429 of scenario (e). */
class RateLimitedChatModel extends FakeListChatModel {
  override async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    throw RATE_LIMITED
  }
}

function answersOf(scenario: Scenario, which: 'primary' | 'secondary'): string[] {
  const steps = (which === 'primary' ? scenario.primary : scenario.secondary) ?? scenario.primary
  return steps.map((s) => (s.kind === 'text' ? s.text : ''))
}

/**
 * LangChain.js: `FakeListChatModel` piped into a structured (JSON + Zod) output parser, wrapped in
 * `withRetry` (3 attempts, delays removed). The retry re-runs the chain: the model gets no feedback.
 * Failover is LangChain's own `withFallbacks`.
 */
export const langchainContender: Contender = {
  name: 'LangChain.js FakeListChatModel + parser + withRetry',
  prepare(scenario: Scenario): Runnable | Unsupported {
    if (scenario.id === 'd') return { unsupported: 'cannot: no tool-argument validation with retry in @langchain/core' }
    const parser = StructuredOutputParser.fromZodSchema(RefundZod)
    const primary =
      scenario.id === 'e' ? new RateLimitedChatModel({ responses: ['unused'] }) : new FakeListChatModel({ responses: answersOf(scenario, 'primary') })
    const secondary = new FakeListChatModel({ responses: answersOf(scenario, 'secondary') })
    const model: LcRunnable = scenario.id === 'e' ? primary.withFallbacks([secondary]) : primary
    const chain = new NoDelayRetry({ bound: model.pipe(parser), kwargs: {}, config: {}, maxAttemptNumber: 3 })
    const note =
      scenario.id === 'b' || scenario.id === 'c' ? 'retry re-runs the chain: no feedback to the model' : scenario.id === 'e' ? 'withFallbacks' : undefined
    return {
      ...(note !== undefined ? { note } : {}),
      call: () => {
        primary.i = 0
        secondary.i = 0
        return chain.invoke(USER_MESSAGE)
      },
    }
  },
}
