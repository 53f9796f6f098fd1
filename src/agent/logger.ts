/**
 * A logger taking plain lines (`console` fits). Every method is optional; a logger that throws never
 * affects a run.
 */
export interface Logger {
  debug?(message: string): void
  info?(message: string): void
  warn?(message: string): void
  error?(message: string): void
}

/** The facts of one log line, as a structured logger receives them. */
export type LogFields = Readonly<Record<string, unknown>>

/**
 * A structured logger in pino's style: `logger.info(fields, message)` (pino, bunyan and their kin
 * fit as they are). Every method is optional; a logger that throws never affects a run.
 */
export interface StructuredLogger {
  debug?(fields: LogFields, message?: string): void
  info?(fields: LogFields, message?: string): void
  warn?(fields: LogFields, message?: string): void
  error?(fields: LogFields, message?: string): void
}

/** A log level of {@link Logger}. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

/**
 * How the agent calls its logger: `line` as `info(message)`, `fields` as `info(fields, message)`,
 * `auto` picks `fields` for a logger with a `child()` method (pino, bunyan) and `line` otherwise.
 * @default 'auto'
 */
export type LogFormat = 'auto' | 'line' | 'fields'

/**
 * A logger with the form it is called in, settled once when the agent is built.
 * @internal
 */
export interface LogSink {
  readonly logger: Logger | StructuredLogger
  readonly structured: boolean
}

/** Settles how `logger` is called; `undefined` without a logger. */
export function logSink(logger: Logger | StructuredLogger | undefined, format: LogFormat = 'auto'): LogSink | undefined {
  if (logger === undefined) return undefined
  const structured = format === 'fields' || (format === 'auto' && typeof (logger as { child?: unknown }).child === 'function')
  return { logger, structured }
}

// Line breaks and other control characters: a name interpolated into a line cannot start another.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
const BREAKS = /[\u0000-\u001f\u007f\u2028\u2029]/g

/** A log line on one line: control characters escaped (`\n`, `\u0000`). */
export function oneLogLine(message: string): string {
  return message.replace(BREAKS, (c) => (c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
}

/**
 * Writes one line: the line alone to a line logger, the fields and the line to a structured one.
 * The line never spans lines (see {@link oneLogLine}). Whatever the logger throws is swallowed.
 */
export function writeLog(sink: LogSink | undefined, level: LogLevel, message: string, fields: LogFields): void {
  if (sink === undefined) return
  const line = oneLogLine(message)
  try {
    if (sink.structured) (sink.logger as StructuredLogger)[level]?.(fields, line)
    else (sink.logger as Logger)[level]?.(line)
  } catch {
    // Logging is observation: a broken sink must not break the run it observes.
  }
}
