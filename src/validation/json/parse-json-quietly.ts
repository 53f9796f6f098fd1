import { resumeStackTraces, suspendStackTraces } from '../../model/stack-traces.ts'

/** What {@link parseJsonQuietly} answers for a text that is not JSON: the parser's error. */
export class JsonSyntaxFailure {
  readonly error: unknown
  constructor(error: unknown) {
    this.error = error
  }
}

// The last text that failed to parse, with its failure. The fast path, extraction and repair try the
// same answer in turn, and each failed `JSON.parse` costs microseconds (V8 formats a message with
// the position and a snippet). Parsing is deterministic, so an equal text fails the same way; texts
// over the bound are not kept, so no large answer outlives its check.
let lastFailedText: string | undefined
let lastFailure: JsonSyntaxFailure | undefined
const REMEMBER_MAX_LENGTH = 65_536

/**
 * `JSON.parse` for texts that often do not parse: the value, or a {@link JsonSyntaxFailure} holding
 * the parser's error (never a parsed value: `JSON.parse` only builds plain objects). A failure costs
 * no stack trace (V8 captures one for every `SyntaxError`, and only the message is read here), and
 * the latest failing text is answered again without parsing (see `suspendStackTraces`; the parse
 * runs no user code while stack traces are off).
 */
export function parseJsonQuietly(text: string): unknown {
  if (text === lastFailedText) return lastFailure
  const saved = suspendStackTraces()
  try {
    return JSON.parse(text)
  } catch (error) {
    const failure = new JsonSyntaxFailure(error)
    if (text.length <= REMEMBER_MAX_LENGTH) {
      lastFailedText = text
      lastFailure = failure
    }
    return failure
  } finally {
    resumeStackTraces(saved)
  }
}
