import { errorName, messageOf } from '../model/message-of.ts'
import { formatIssueLines, MAX_PROBLEM, MAX_QUOTED_PATH, oneLine, type ValidationFailure } from '../validation/index.ts'

/**
 * The tool results the agent writes itself when a call is not executed or fails: each one says
 * what happened and what the model can do next, in the prose style of the validation feedback.
 * Every model-controlled part (an invented tool name, the issues) is bounded.
 */
export const toolMessages = {
  unknownTool(name: string, available: readonly string[]): string {
    const list = available.length === 0 ? 'none' : available.join(', ')
    return `UNKNOWN_TOOL: there is no tool named '${oneLine(name, MAX_QUOTED_PATH)}'. Available tools: ${list}.`
  },

  invalidArgs(name: string, failure: ValidationFailure, retries: number, why: 'exhausted' | 'gave-up'): string {
    const after =
      why === 'gave-up' ? 'the retry did not call it again' : retries === 0 ? 'not retried' : `after ${retries} ${retries === 1 ? 'retry' : 'retries'}`
    const lines = failure.issues.length > 0 ? formatIssueLines(failure.issues) : [`- ${failure.message}`]
    return [
      `INVALID_ARGUMENTS: the call to tool '${name}' was not executed: its arguments are invalid (${after}):`,
      ...lines,
      `Fix every field listed above before calling '${name}' again, or answer without it.`,
    ].join('\n')
  },

  guardRejected(name: string, guard: string, reason: string): string {
    return `BLOCKED: the call to tool '${name}' was not executed: guard ${guard} rejected its arguments: ${oneLine(reason, MAX_PROBLEM)}`
  },

  executeFailed(name: string, error: unknown): string {
    return `TOOL_ERROR: tool '${name}' failed: ${messageOf(error)}`
  },

  resultUnwritable(name: string, reason: string): string {
    return `TOOL_ERROR: tool '${name}' failed: its result cannot be sent as JSON (${oneLine(reason, MAX_PROBLEM)})`
  },

  aborted(name: string, error: unknown): string {
    return `TOOL_ABORTED: tool '${name}' was aborted before it finished: ${messageOf(error)}`
  },
} as const

/** What a tool's result is sent as: its text, or why it has none. */
export type ToolResultText = { readonly text: string; readonly problem?: undefined } | { readonly text?: undefined; readonly problem: string }

/**
 * The text a tool's result is sent to the model as: a string as it is, `undefined` as
 * `(no result)`, anything else as its JSON. A result JSON cannot write (a BigInt, a cycle, a
 * `toJSON` or a getter that throws, a function, a Symbol, nesting too deep) has no text, only the
 * reason, for {@link toolMessages}.resultUnwritable: never `[object Object]`, never a function's
 * source. Never throws.
 */
export function toolResultText(result: unknown): ToolResultText {
  if (typeof result === 'string') return { text: result }
  if (result === undefined) return NO_RESULT
  if (typeof result === 'function' || typeof result === 'symbol') return { problem: `it is a ${typeof result}` }
  try {
    const text: string | undefined = JSON.stringify(result)
    return text === undefined ? { problem: 'its toJSON gives nothing JSON can write' } : { text }
  } catch (error) {
    return { problem: `${errorName(error) ?? 'thrown'}: ${messageOf(error)}` }
  }
}

const NO_RESULT: ToolResultText = Object.freeze({ text: '(no result)' })
