import type { Provider } from '../../model/provider.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ModelResponse } from '../../model/response.ts'
import { callSdk } from '../../providers/adapter-kit/sdk-call.ts'

/** A host's model as the gate's provider, and the host's own answer behind the last attempt. */
export interface HostProvider<R> {
  readonly provider: Provider
  /**
   * The host's answer of the latest attempt, as the host gave it; `undefined` while that attempt
   * has not answered (or failed). Read it after the run: it is the accepted answer unless the run
   * ended in the fallback.
   */
  last(): R | undefined
}

/** The host's call of its model, for one attempt's request (the base request plus the gate's ephemeral tail). */
export type HostCall<R> = (request: ModelRequest) => PromiseLike<R>

/**
 * The provider of a host middleware (AI SDK, LangChain): every attempt of the gate calls the host's
 * model, the first included, so the breaker, rate limit, budget and deadline come before each call
 * and a failure of any call reaches the rules. A throw comes out as a `ProviderError` of `name`
 * (`aborted` when the attempt's signal fired). An attempt the deadline abandoned may still answer
 * later: only the answer of the latest attempt is kept.
 *
 * @example
 * const host = hostProvider('langchain', undefined, (request) => handler(withTail(request)), toModelResponse)
 * await createGate({ providers: host.provider }).run(base)
 * return host.last()
 */
export function hostProvider<R>(name: string, model: string | undefined, call: HostCall<R>, read: (answer: R) => ModelResponse): HostProvider<R> {
  let last: R | undefined
  let started = 0
  const provider: Provider = {
    name,
    ...(model !== undefined ? { model } : {}),
    async complete(request) {
      const attempt = ++started
      last = undefined
      const answer = await callSdk(name, request, () => call(request))
      if (attempt === started) last = answer
      return read(answer)
    },
  }
  return { provider, last: () => last }
}
