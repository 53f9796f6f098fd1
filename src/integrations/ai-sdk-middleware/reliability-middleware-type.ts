import type { Observable } from 'rxjs'
import type { GateEvent, GateEventMap, GateEventName } from '../../events/event-map.ts'

// The middleware's type names no type of `@ai-sdk/provider`: its methods are generic over the call
// options and results of the model they wrap, so one middleware object fits `wrapLanguageModel` of
// `ai` 6 (specification v3) and of `ai` 7 (v4), each checking it against its own types.

/** The model one call wraps, with what v3 and v4 models both have: `P` its call options, `G` and `S` its results. */
export interface MiddlewareModel<P, G, S> {
  readonly provider: string
  readonly modelId: string
  doGenerate(options: P): PromiseLike<G>
  doStream(options: P): PromiseLike<S>
}

/** What `wrapLanguageModel` passes `wrapGenerate` and `wrapStream`, in either specification. */
export interface MiddlewareCall<P, G, S> {
  readonly doGenerate: () => PromiseLike<G>
  readonly doStream: () => PromiseLike<S>
  readonly params: P
  readonly model: MiddlewareModel<P, G, S>
}

/** The call options the middleware reads: a prompt, as v3's and v4's have. */
export interface MiddlewareParams {
  readonly prompt: readonly object[]
}

/**
 * The middleware of {@link reliabilityMiddleware}: an AI SDK `LanguageModelMiddleware` for `ai` 6
 * and `ai` 7 alike, plus the gate's typed events.
 */
export interface ReliabilityMiddleware {
  /**
   * `'v3'`: the version `ai` 6's `wrapLanguageModel` requires; `ai` 7's takes middleware of any
   * version. The methods handle v3 and v4 calls alike.
   */
  readonly specificationVersion: 'v3'
  /** Runs `generateText`'s model call through the gate; resolves with the model's own result type. */
  wrapGenerate<P extends MiddlewareParams, G extends object, S>(call: MiddlewareCall<P, G, S>): Promise<G>
  /** Runs `streamText`'s model call through the gate; resolves with the model's own stream result type. */
  wrapStream<P extends MiddlewareParams, G, S extends object>(call: MiddlewareCall<P, G, S>): Promise<S>
  /** Subscribes to one gate event; returns the unsubscribe function. */
  on<K extends GateEventName>(name: K, listener: (payload: GateEventMap[K]) => void): () => void
  /** Every gate event, as an Observable. */
  readonly events$: Observable<GateEvent>
}
