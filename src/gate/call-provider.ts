import { raceAbort } from '../model/race-abort.ts'
import type { ModelResponse } from '../model/response.ts'
import { isThenable } from '../model/user-code.ts'
import type { ResponseCall } from '../policies/chain-attempt.ts'
import type { ResolvedProvider } from './resolved-provider.ts'

/**
 * The end of the attempt chain: the provider of the attempt, called with the request as the links
 * left it (its `signal` included); a provider that throws synchronously counts as one that rejects,
 * and one that answers at once is handed on at once. The attempt itself settles when its deadline
 * or the run's signal stops it; with user links (`userLinks`) the call is also raced against the
 * signal of the request it was given, so that they hear the abort too.
 */
export function providerCall(providers: readonly ResolvedProvider[], userLinks: boolean): ResponseCall {
  return function callProvider(ctx, attempt) {
    const answer = (providers[ctx.providerIdx] as ResolvedProvider).provider.complete(ctx.request) as ModelResponse | Promise<ModelResponse>
    if (!userLinks) return answer
    // Kept for the meter: a link may still fail the attempt once the provider answered (see `meterStage`).
    if (!isThenable(answer)) return (attempt.answered = answer)
    const kept = Promise.resolve(answer).then((response) => (attempt.answered = response))
    // The run's own signal stops the attempt already.
    const signal = ctx.request.signal
    return signal === undefined || signal === attempt.runSignal ? kept : raceAbort(kept, signal)
  }
}
