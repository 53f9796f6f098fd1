import type { ModelRequest } from '../../model/request.ts'
import type { StreamChunk } from '../../model/stream-chunk.ts'
import { toProviderError } from './to-provider-error.ts'

/**
 * Makes one SDK call for `request`; whatever it throws comes out as a `ProviderError` of `provider`
 * (`aborted` when the request's signal fired).
 *
 * @example
 * const completion = await callSdk(name, request, () => client.chat.completions.create(body, signalOption(request)))
 */
export async function callSdk<R>(provider: string, request: ModelRequest, call: () => PromiseLike<R>): Promise<R> {
  try {
    return await call()
  } catch (error) {
    throw toProviderError(error, provider, request.signal)
  }
}

/**
 * Opens an SDK stream for `request` and yields its chunks; a failure to open it or mid-stream comes
 * out as a `ProviderError` of `provider`.
 *
 * @example
 * yield* streamSdk(name, request, () => client.messages.create({ ...body, stream: true }), anthropicStreamChunks)
 */
export async function* streamSdk<S>(
  provider: string,
  request: ModelRequest,
  open: () => PromiseLike<S>,
  toChunks: (source: S) => AsyncIterable<StreamChunk>,
): AsyncGenerator<StreamChunk> {
  try {
    yield* toChunks(await open())
  } catch (error) {
    throw toProviderError(error, provider, request.signal)
  }
}

/** The request's abort signal as the Stainless SDKs' per-call options (`{}` without one). */
export function signalOption(request: ModelRequest): { signal?: AbortSignal } {
  return request.signal !== undefined ? { signal: request.signal } : {}
}

/** The model to call: the request's, else the adapter's default; a `TypeError` when neither names one. */
export function requestModel(provider: string, request: ModelRequest, fallback: string | undefined): string {
  const model = request.model ?? fallback
  if (model === undefined) throw new TypeError(`${provider}: no model given (set it on the gate, the request or the adapter)`)
  return model
}
