/**
 * Where the agent writes its structured log lines (`console` fits). Every method is optional; a
 * logger that throws never affects a run.
 */
export interface Logger {
  debug?(message: string): void
  info?(message: string): void
  warn?(message: string): void
  error?(message: string): void
}

/** A log level of {@link Logger}. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

/** Writes one line, swallowing whatever the logger throws. */
export function writeLog(logger: Logger | undefined, level: LogLevel, message: string): void {
  if (logger === undefined) return
  try {
    logger[level]?.(message)
  } catch {
    // Logging is observation: a broken sink must not break the run it observes.
  }
}
