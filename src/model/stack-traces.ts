// What suspendStackTraces answers when it could not change the limit (nothing to restore).
const UNCHANGED: unique symbol = Symbol('reliability-gate.stackTraceLimitUnchanged')

/** The limit to hand back to {@link resumeStackTraces}. */
export type SavedStackTraceLimit = unknown

/**
 * Stops errors made from now on from capturing a stack trace (`Error.stackTraceLimit = 0`) and
 * answers what to restore. For errors that are data, not crashes (a validation verdict, a parse
 * failure whose message is all that is read): V8 spends microseconds capturing each stack. Where the
 * limit cannot be set (a frozen `Error`, a hardened realm) nothing changes and nothing throws.
 * Always pair it with {@link resumeStackTraces} in a `finally`, with no user code in between.
 */
export function suspendStackTraces(): SavedStackTraceLimit {
  const saved = Error.stackTraceLimit
  try {
    Error.stackTraceLimit = 0
  } catch {
    return UNCHANGED
  }
  return saved
}

/** Restores what {@link suspendStackTraces} changed. */
export function resumeStackTraces(saved: SavedStackTraceLimit): void {
  if (saved === UNCHANGED) return
  try {
    Error.stackTraceLimit = saved as number
  } catch {
    // Frozen in between: nothing more can be done.
  }
}
