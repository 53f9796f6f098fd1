import { ProviderError } from '../../model/provider-error.ts'
import type { Provider } from '../../model/provider.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { StreamChunk } from '../../model/stream-chunk.ts'

/** What the consumer of a chunk asks for next. */
export type ChunkVerdict = 'continue' | 'stop'

/**
 * Iterates `provider.stream(request)` under the caller's signal and a timeout for the whole
 * stream. `onChunk` may answer `stop` to end the stream early: the provider's request is aborted
 * through its `AbortSignal` and its iterator closed. Settles as soon as the signal aborts or the
 * timeout fires, even if the provider ignores its signal.
 */
export async function consumeProviderStream(
  provider: Provider & { stream: NonNullable<Provider['stream']> },
  request: ModelRequest,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  onChunk: (chunk: StreamChunk) => ChunkVerdict,
): Promise<'ended' | 'stopped'> {
  if (signal?.aborted === true) throw aborted(signal)
  const controller = new AbortController()
  let rejectStop: ((e: unknown) => void) | undefined
  const interrupted = new Promise<never>((_, reject) => {
    rejectStop = reject
  })
  interrupted.catch(() => undefined)
  const onAbort = (): void => {
    const error = aborted(signal)
    controller.abort(error)
    rejectStop?.(error)
  }
  signal?.addEventListener('abort', onAbort, { once: true })
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          const error = new ProviderError(`provider "${provider.name}" did not finish streaming within ${timeoutMs} ms`, { kind: 'timeout', provider: provider.name })
          controller.abort(error)
          rejectStop?.(error)
        }, timeoutMs)
  let iterator: AsyncIterator<StreamChunk> | undefined
  let done = false
  try {
    iterator = provider.stream({ ...request, signal: controller.signal })[Symbol.asyncIterator]()
    for (;;) {
      const next = await Promise.race([iterator.next(), interrupted])
      if (next.done === true) {
        done = true
        return 'ended'
      }
      if (onChunk(next.value) === 'stop') {
        controller.abort(new DOMException('the gate stopped reading the stream', 'AbortError'))
        return 'stopped'
      }
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
    // Closing the provider's iterator releases its HTTP response; it may reject once aborted.
    if (!done && iterator?.return !== undefined) void Promise.resolve(iterator.return()).catch(() => undefined)
  }
}

function aborted(signal: AbortSignal | undefined): ProviderError {
  return new ProviderError('the run was aborted', { kind: 'aborted', cause: signal?.reason })
}
