import { resumeStackTraces, suspendStackTraces } from '../../model/stack-traces.ts'

/** What {@link parseJsonQuietly} answers for a text that is not JSON: the parser's error. */
export class JsonSyntaxFailure {
  readonly error: unknown
  constructor(error: unknown) {
    this.error = error
  }
}

/**
 * `JSON.parse` for texts that often do not parse: the value, or a {@link JsonSyntaxFailure} holding
 * the parser's error (never a parsed value: `JSON.parse` only builds plain objects). A failure costs
 * no stack trace (V8 captures one for every `SyntaxError`, and only the message is read here; see
 * `suspendStackTraces`: the parse runs no user code while stack traces are off).
 */
export function parseJsonQuietly(text: string): unknown {
  const saved = suspendStackTraces()
  try {
    return JSON.parse(text)
  } catch (error) {
    return new JsonSyntaxFailure(error)
  } finally {
    resumeStackTraces(saved)
  }
}
