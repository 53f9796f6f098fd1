import type { AttemptResult, Terminal } from '../policies/middleware.ts'
import { raceAbort } from '../model/race-abort.ts'
import { slotOf } from '../policies/attempt-slot.ts'
import type { ResolvedProvider } from './resolved-provider.ts'

/**
 * The end of the attempt chain: the provider of the attempt, called with the request as the links
 * left it (its `signal` included). The call settles as soon as that signal aborts, even if the
 * provider ignores it (the attempt races the run's signal itself, once); a provider that throws synchronously counts as one that rejects.
 */
export function providerCall(providers: readonly ResolvedProvider[]): Terminal {
  return function callProvider(ctx) {
    const provider = (providers[ctx.providerIdx] as ResolvedProvider).provider
    let pending: Promise<AttemptResult>
    try {
      pending = Promise.resolve(provider.complete(ctx.request)).then(wrap)
    } catch (error) {
      return Promise.reject(error)
    }
    const signal = ctx.request.signal
    // The run's signal is raced by the attempt itself, once.
    return signal === undefined || signal === slotOf(ctx)?.raced ? pending : raceAbort(pending, signal)
  }
}

function wrap(response: AttemptResult['response']): AttemptResult {
  return { response }
}
