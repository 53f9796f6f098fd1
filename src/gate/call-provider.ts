import type { ModelResponse } from '../model/response.ts'
import type { AttemptContext, AttemptResult, Terminal } from '../policies/middleware.ts'
import { bareResponseTerminal, wrapResponse } from '../policies/response-terminal.ts'
import { raceAbort } from '../model/race-abort.ts'
import { attemptSignal, slotOf } from '../policies/attempt-slot.ts'
import type { ResolvedProvider } from './resolved-provider.ts'

/**
 * The end of the attempt chain: the provider of the attempt, called with the request as the links
 * left it (its `signal` included). The call settles as soon as that signal aborts, even if the
 * provider ignores it; a provider that throws synchronously counts as one that rejects. The
 * attempt itself races the run's signal, and its deadline stops it: with the attempt's own request,
 * the call is raced here only when user links wait on it (`userLinks`), so they hear the abort too.
 */
export function providerCall(providers: readonly ResolvedProvider[], userLinks: boolean): Terminal {
  // Without user links the chain's run of stages is just outside: it wraps the bare response itself.
  if (!userLinks) return bareResponseTerminal((ctx) => called(providers, ctx, false, bare))
  return (ctx) => called(providers, ctx, true, wrapped)
}

/** The provider of the attempt called, its answer as `answer` makes it, raced as {@link providerCall} says. */
function called<A>(providers: readonly ResolvedProvider[], ctx: AttemptContext, userLinks: boolean, answer: (response: Answer) => Promise<A>): Promise<A> {
  const provider = (providers[ctx.providerIdx] as ResolvedProvider).provider
  let pending: Promise<A>
  try {
    pending = answer(provider.complete(ctx.request))
  } catch (error) {
    return Promise.reject(error)
  }
  const slot = slotOf(ctx)
  if (slot !== undefined && slot.request === ctx.request) return userLinks ? raceAbort(pending, attemptSignal(slot)) : pending
  const signal = ctx.request.signal
  // The run's signal is raced by the attempt itself, once.
  return signal === undefined || signal === slot?.raced ? pending : raceAbort(pending, signal)
}

type Answer = ModelResponse | PromiseLike<ModelResponse>

function bare(response: Answer): Promise<ModelResponse> {
  return Promise.resolve(response)
}

function wrapped(response: Answer): Promise<AttemptResult> {
  return Promise.resolve(response).then(wrapResponse)
}
