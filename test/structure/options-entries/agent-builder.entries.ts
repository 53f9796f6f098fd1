import { Agent, type Provider } from '../../../src/index.ts'
import type { OptionsEntry } from './entry.ts'

/** A provider that answers at once. */
const provider: Provider = {
  name: 'p',
  complete: async () => ({ content: 'ok', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }),
}
const pricing = { m: { input: 1, output: 1 } }

/** The Agent builder's methods that take an options object. */
export const entries: readonly OptionsEntry[] = [
  {
    name: 'Agent.costBudget',
    keys: ['usd', 'onExceed', 'onUnpriced'],
    numbers: ['usd'],
    call: (options) =>
      Agent.create({ provider, model: 'm' })
        .reliability({ pricing })
        .costBudget({ usd: 1, ...options })
        .build(),
  },
  {
    name: 'Agent.create noProgress',
    keys: ['repeats', 'errorRepeats', 'pingPong', 'textRepeats', 'loopKey', 'exempt', 'forcedChange'],
    numbers: ['repeats', 'errorRepeats', 'pingPong', 'textRepeats'],
    call: (options) => Agent.create({ provider, model: 'm', noProgress: options }).build(),
  },
  {
    name: 'Agent.outputFallback',
    keys: ['fallback', 'canned', 'alsoOn'],
    call: (options) =>
      Agent.create({ provider, model: 'm' })
        .outputFallback({ canned: 'sorry', ...options } as never)
        .build(),
  },
]
