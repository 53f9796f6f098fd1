/**
 * Rethrows an error thrown by a subscriber's own callback outside the emitting code, as rxjs does for
 * its subscribers: the producer (a gate run) goes on, and the error still surfaces as uncaught.
 */
export function reportUnhandled(error: unknown): void {
  queueMicrotask(() => {
    throw error
  })
}
