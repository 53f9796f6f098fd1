import type { Provider } from '../../model/provider.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { StreamChunk } from '../../model/stream-chunk.ts'
import { abortReason } from '../../policies/deadline/abort-reason.ts'
import { raceAbort } from '../../policies/deadline/race-abort.ts'
import { withSignal } from '../../policies/deadline/with-signal.ts'

/** What the consumer of a chunk asks for next. */
export type ChunkVerdict = 'continue' | 'stop'

/**
 * Iterates `provider.stream(request)` under the request's signal (the run's, and the deadline's
 * when a timeout is set). `onChunk` may answer `stop` to end the stream early: the provider's
 * request is aborted through its own signal and its iterator closed. Settles as soon as the signal
 * aborts, even if the provider ignores it.
 */
export async function consumeProviderStream(
  provider: Provider & { stream: NonNullable<Provider['stream']> },
  request: ModelRequest,
  onChunk: (chunk: StreamChunk) => ChunkVerdict,
): Promise<'ended' | 'stopped'> {
  const signal = request.signal
  if (signal?.aborted === true) throw abortReason(signal)
  // The provider gets its own signal, so the gate can stop it without aborting the run.
  const controller = new AbortController()
  const forward = (): void => controller.abort(signal?.reason)
  signal?.addEventListener('abort', forward, { once: true })
  let iterator: AsyncIterator<StreamChunk> | undefined
  let done = false
  try {
    iterator = provider.stream(withSignal(request, controller.signal))[Symbol.asyncIterator]()
    for (;;) {
      const next = await raceAbort(iterator.next(), signal)
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
    signal?.removeEventListener('abort', forward)
    // Closing the provider's iterator releases its HTTP response; it may reject once aborted.
    if (!done && iterator?.return !== undefined) void Promise.resolve(iterator.return()).catch(() => undefined)
  }
}
