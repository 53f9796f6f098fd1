/**
 * A `doStream` for the AI SDK's MockLanguageModelV4 that streams `deltas` and then waits, as a slow
 * model does, until its call is aborted (`abortSignal`, which a real model's fetch obeys: the
 * stream then errors). `outcome()` tells whether the call was aborted, or the model was left
 * streaming (bounded, so a test fails rather than hangs).
 */
export function waitingModel(deltas: readonly string[]) {
  let abort: () => void = () => {}
  const aborted = new Promise<void>((resolve) => (abort = resolve))
  const doStream = async (options: { abortSignal?: AbortSignal }) => {
    let sent = 0
    const stream = new ReadableStream({
      start(c) {
        c.enqueue({ type: 'stream-start', warnings: [] })
        c.enqueue({ type: 'text-start', id: 't' })
        const signal = options.abortSignal
        const stop = () => {
          abort()
          c.error(signal?.reason)
        }
        if (signal?.aborted === true) stop()
        else signal?.addEventListener('abort', stop, { once: true })
      },
      pull(c) {
        if (sent < deltas.length) c.enqueue({ type: 'text-delta', id: 't', delta: deltas[sent++] })
        else return aborted
        return undefined
      },
    })
    return { stream } as never
  }
  const outcome = () => Promise.race([aborted.then(() => 'model call aborted'), new Promise((resolve) => setTimeout(resolve, 2000, 'model still streaming'))])
  return { doStream, outcome }
}
