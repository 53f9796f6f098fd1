import { jsonTextOf } from '../model/json-text-of.ts'
import { messageOf } from '../model/message-of.ts'
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

  aborted(name: string, error: unknown): string {
    return `TOOL_ABORTED: tool '${name}' was aborted before it finished: ${messageOf(error)}`
  },
} as const

/**
 * The content of a successful tool result: a string as it is, anything else as JSON (its string
 * form when it has no JSON: a BigInt, a cycle, a throwing `toJSON`, an object without prototype).
 */
export function toolResultContent(result: unknown): string {
  if (typeof result === 'string') return result
  if (result === undefined) return '(no result)'
  return jsonTextOf(result)
}
