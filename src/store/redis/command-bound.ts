/** Sends one operation to the server, unless too many wait already; see {@link commandBound}. */
export type BoundedSend = <T>(send: () => Promise<T>) => Promise<T>

/** The default of `maxPending`: far above what a healthy server ever holds, low enough to stop a pile-up. */
export const DEFAULT_MAX_PENDING = 1_000

/**
 * Bounds what a store waits for. An operation that gets no answer within `timeoutMs` rejects (the
 * command itself stays with the client until the server answers or the connection drops: Redis
 * answers in order); while `maxPending` operations are unanswered, timed-out ones included, a new
 * one rejects at once without being sent. So a stalled server costs each call at most `timeoutMs`,
 * and what waits for it stays bounded, however many calls come.
 */
export function commandBound(timeoutMs: number | undefined, maxPending: number): BoundedSend {
  let pending = 0
  return function bounded<T>(send: () => Promise<T>): Promise<T> {
    if (pending >= maxPending) {
      return Promise.reject(new Error(`${pending} operations already wait for the server (maxPending ${maxPending}): not sent`))
    }
    let sent: Promise<T>
    try {
      sent = send()
    } catch (error) {
      return Promise.reject(error)
    }
    pending++
    const answered = (): void => {
      pending--
    }
    sent.then(answered, answered)
    if (timeoutMs === undefined) return sent
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms (commandTimeoutMs)`)), timeoutMs)
      sent.then(
        (value) => {
          clearTimeout(timer)
          resolve(value)
        },
        (error: unknown) => {
          clearTimeout(timer)
          reject(error)
        },
      )
    })
  }
}
