import { parsePath, type Segment } from './value-path.ts'

/** One issue the feedback names: the path, and whether the fix is to remove the property. */
export interface NamedIssue {
  readonly path: readonly Segment[]
  readonly remove: boolean
}

/** The gate's issue line: `- '<path>': <text>`. */
const ISSUE_LINE = /^\s*[-*•]\s*'(.*?)':\s*(.*)$/
const REMOVE = /unknown (?:field|property|key)|additional propert|not allowed|remove it/i
const PARSE_FAILURE = /could not be parsed|not valid JSON|invalid JSON/i

/** Marker the gate appends when it shortened the previous answer in the retry tail. */
export const TRUNCATION_MARKER = '[…truncated for length…]'

/**
 * Reads the issues a feedback message names, one per `- '<path>': <text>` line; other lines (headers,
 * hints, closing instructions) are ignored, as is a line whose path cannot be read.
 */
export function readFeedback(text: string): { readonly issues: readonly NamedIssue[]; readonly parseFailure: boolean } {
  const issues: NamedIssue[] = []
  for (const line of text.split('\n')) {
    const match = ISSUE_LINE.exec(line)
    if (match === null) continue
    const path = parsePath(match[1] ?? '')
    if (path !== undefined) issues.push({ path, remove: REMOVE.test(match[2] ?? '') })
  }
  return { issues, parseFailure: PARSE_FAILURE.test(text) }
}

/** Whether a message reads like the gate's feedback (used when the `ephemeral` flags were stripped). */
export function looksLikeFeedback(text: string): boolean {
  return PARSE_FAILURE.test(text) || text.split('\n').some((line) => ISSUE_LINE.test(line))
}
