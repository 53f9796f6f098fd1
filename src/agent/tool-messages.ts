import { messageOf } from '../model/message-of.ts'
import { boundText, formatIssueLines, MAX_PROBLEM, MAX_QUOTED_PATH, oneLine, safeJsonText, type ValidationFailure } from '../validation/index.ts'

/**
 * The tool results the agent writes itself when a call is not executed or fails: each one says
 * what happened and what the model can do next, in the prose style of the validation feedback.
 * Every model-controlled part (an invented tool name, the issues) is bounded.
 */
export const toolMessages = {
  /** A call of a tool the no-progress ladder withheld for this turn: not run, not a tool failure. */
  withheld(name: string): string {
    return `WITHHELD: '${oneLine(name, MAX_QUOTED_PATH)}' is not available for this turn because it was repeated without progress; it was not run. Take a different step or give your answer.`
  },

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

  /** A thrown error's message, bounded by the feedback budget (`maxChars`) with a marker saying how much was cut. */
  executeFailed(name: string, error: unknown, maxChars: number): string {
    return boundText(`TOOL_ERROR: tool '${name}' failed: ${messageOf(error)}`, maxChars)
  },

  /** A human rejected the call (their reason, bounded by the feedback budget): it was not run. */
  approvalRejected(name: string, reason: string | undefined, maxChars: number): string {
    const why = reason === undefined || reason === '' ? '' : `: ${oneLine(reason, MAX_PROBLEM)}`
    return boundText(
      `REJECTED: the call to tool '${name}' was not executed: a human rejected it${why}. Do not repeat it with the same arguments; change them as the reason says, or answer without it.`,
      maxChars,
    )
  },

  /** Nobody decided before the approval expired: the call was not run. */
  approvalExpired(name: string): string {
    return `NOT_APPROVED: the call to tool '${name}' was not executed: its approval expired before anyone decided. Answer without it, or say that it is waiting for approval.`
  },

  aborted(name: string, error: unknown, maxChars: number): string {
    return boundText(`TOOL_ABORTED: tool '${name}' was aborted before it finished: ${messageOf(error)}`, maxChars)
  },
} as const

/**
 * The text a tool's result is sent to the model as, at most `maxChars` characters (the feedback
 * budget; a longer text keeps its head and a marker saying how many characters were cut): a string
 * as it is, `undefined` (or a `toJSON` giving nothing) as `(no result)`, anything else as its JSON,
 * written safely when `JSON.stringify` cannot write it (a BigInt as a string, a cycle as
 * `"[Circular]"`, a function by its name, a throwing `toJSON` or getter as `"[Unreadable: ...]"`, a
 * Map, a Set or an opaque instance as its data or its class, never `{}`):
 * the tool ran, so its call is reported done. Never `[object Object]`, never a function's source;
 * never throws.
 */
export function toolResultText(result: unknown, maxChars: number): string {
  const text = typeof result === 'string' ? result : safeJsonText(result)
  return text === undefined ? NO_RESULT : boundText(text, maxChars)
}

const NO_RESULT = '(no result)'
