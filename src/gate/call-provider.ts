import type { AttemptResult, Terminal } from '../policies/middleware.ts'
import { raceAbort } from '../model/race-abort.ts'
import type { ResolvedProvider } from './resolved-provider.ts'

/**
 * The end of the attempt chain: the provider of the attempt, called with the request as the links
 * left it (its `signal` included). The call settles as soon as that signal aborts, even if the
 * provider ignores it; a provider that throws synchronously counts as one that rejects.
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
    return raceAbort(pending, ctx.request.signal)
  }
}

function wrap(response: AttemptResult['response']): AttemptResult {
  return { response }
}
