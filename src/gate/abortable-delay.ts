/** Waits `ms`, rejecting with the signal's reason as soon as it aborts. The timer never outlives an abort. */
export function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0 && signal?.aborted !== true) return Promise.resolve()
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason)
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
