import type { ModelResponse } from '../../model/response.ts'

/**
 * A response as an attempt's step journals it: the model's tool arguments as the JSON text they
 * were (`argsJson`), not as an object. Arguments are the model's words: a key `__proto__` among
 * them is for the check to refuse with feedback, as it does in a run without a port; journaled as
 * an object, the port would refuse the whole step as unsafe data and fail the run instead. The
 * text is parsed again when the entry is read, giving what `JSON.parse` gave the first time (a key
 * `__proto__` an own data property, never a prototype).
 */
export function journaledResponse(response: ModelResponse): ModelResponse {
  const calls = response.toolCalls
  if (!Array.isArray(calls) || calls.length === 0) return response
  // The journaled form only: `args` becomes `argsJson` (see responseFromJournal).
  return { ...response, toolCalls: calls.map(journaledCall) as unknown as ModelResponse['toolCalls'] }
}

function journaledCall(call: unknown): unknown {
  if (typeof call !== 'object' || call === null || !('args' in call)) return call
  const { args, ...rest } = call as { readonly args: unknown }
  if (args === undefined) return call
  let text: string | undefined
  try {
    text = JSON.stringify(args)
  } catch {
    // Arguments JSON cannot write (a BigInt, a cycle) stay as they are: the port explains why it cannot journal them.
    return call
  }
  return text === undefined ? call : { ...rest, argsJson: text }
}

/**
 * The response of a journaled attempt, each tool call's `argsJson` parsed back into `args`; what
 * is not a journaled response is answered as it is (the response check that follows judges it).
 * `bad`: the error for text that is not JSON (no entry the port wrote).
 */
export function responseFromJournal(value: unknown, bad: (reason: string, cause?: unknown) => Error): unknown {
  if (typeof value !== 'object' || value === null) return value
  const calls = (value as { readonly toolCalls?: unknown }).toolCalls
  if (!Array.isArray(calls) || !calls.some(hasArgsText)) return value
  const toolCalls = calls.map((call: unknown) => {
    if (!hasArgsText(call)) return call
    const { argsJson, ...rest } = call
    if (typeof argsJson !== 'string') throw bad('has tool arguments whose text is no string')
    try {
      return { ...rest, args: JSON.parse(argsJson) as unknown }
    } catch (error) {
      throw bad('has tool arguments whose text is not JSON', error)
    }
  })
  return { ...value, toolCalls }
}

function hasArgsText(call: unknown): call is { readonly argsJson: unknown } {
  return typeof call === 'object' && call !== null && Object.hasOwn(call, 'argsJson')
}
