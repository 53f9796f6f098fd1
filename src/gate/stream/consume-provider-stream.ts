import type { Provider } from '../../model/provider.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { StreamChunk } from '../../model/stream-chunk.ts'
import { ProviderError } from '../../model/provider-error.ts'
import { abortReason } from '../../model/abort-reason.ts'
import { raceAbort } from '../../model/race-abort.ts'
import { withSignal } from '../../policies/deadline/with-signal.ts'

/** What the consumer of a chunk asks for next. */
export type ChunkVerdict = 'continue' | 'stop'

/**
 * Iterates `provider.stream(request)` under the request's signal (the run's, and the deadline's
 * when a timeout is set). `onChunk` may answer `stop` to end the stream early: the provider's
 * request is aborted through its own signal and its iterator closed. Settles as soon as the signal
 * aborts, even if the provider ignores it, and at the `done` chunk, even if the transport stays open
 * (nothing after it is read).
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
    iterator = iteratorOf(provider, withSignal(request, controller.signal))
    for (;;) {
      const next: unknown = await raceAbort(Promise.resolve(iterator.next()), signal)
      if (typeof next !== 'object' || next === null)
        throw malformedStream(provider, `its iterator answered ${next === null ? 'null' : typeof next} instead of { done, value }`)
      if ((next as IteratorResult<unknown>).done === true) {
        done = true
        return 'ended'
      }
      const chunk: unknown = (next as IteratorResult<unknown>).value
      const problem = chunkProblem(chunk)
      if (problem !== undefined) throw malformedStream(provider, problem)
      if (onChunk(chunk as StreamChunk) === 'stop') {
        controller.abort(new DOMException('the gate stopped reading the stream', 'AbortError'))
        return 'stopped'
      }
      // The answer is whole at its `done` chunk: a transport that stays open after it holds nobody.
      // Its iterator is closed (below); the provider's request is not aborted: it answered in full.
      if ((chunk as StreamChunk).type === 'done') return 'ended'
    }
  } finally {
    signal?.removeEventListener('abort', forward)
    // Closing the provider's iterator releases its HTTP response; it may reject once aborted.
    if (!done && iterator !== undefined) closeQuietly(iterator)
  }
}

function closeQuietly(iterator: AsyncIterator<StreamChunk>): void {
  try {
    void Promise.resolve(iterator.return?.()).catch(() => undefined)
  } catch {
    // A provider's iterator that cannot even be closed has nothing more to release.
  }
}

/** The provider's stream iterator; a stream that is not async-iterable is a malformed answer. */
function iteratorOf(provider: Provider & { stream: NonNullable<Provider['stream']> }, request: ModelRequest): AsyncIterator<StreamChunk> {
  const stream: unknown = provider.stream(request)
  const open = (stream as Partial<AsyncIterable<StreamChunk>> | null | undefined)?.[Symbol.asyncIterator]
  if (typeof open !== 'function') throw malformedStream(provider, `stream() returned ${stream === null ? 'null' : typeof stream}, not an AsyncIterable`)
  const iterator: unknown = open.call(stream)
  if (typeof (iterator as Partial<AsyncIterator<StreamChunk>> | null | undefined)?.next !== 'function')
    throw malformedStream(provider, 'its stream has no iterator')
  return iterator as AsyncIterator<StreamChunk>
}

/**
 * What is wrong with a stream chunk, or `undefined`: a chunk is an object whose `type` is `text`
 * (with a string `text`), `usage` or `done` (the `done` response is shape-checked by the gate, like
 * any answer).
 */
function chunkProblem(chunk: unknown): string | undefined {
  if (typeof chunk !== 'object' || chunk === null) return `a chunk is ${chunk === null ? 'null' : typeof chunk}, not an object`
  const { type } = chunk as { type?: unknown }
  if (type === 'text') return typeof (chunk as { text?: unknown }).text === 'string' ? undefined : 'a text chunk has no string text'
  if (type === 'usage' || type === 'done') return undefined
  return `a chunk has the unknown type ${typeof type === 'string' ? JSON.stringify(type.slice(0, 40)) : typeof type}`
}

function malformedStream(provider: Provider, problem: string): ProviderError {
  return new ProviderError(`provider "${provider.name}" streamed a malformed answer: ${problem}`, { kind: 'malformed-response', provider: provider.name })
}
