import { oneLine } from '../../validation/index.ts'
import type { NoProgressPattern } from './no-progress-verdict.ts'

// Names and errors come from the model and the tools: one line, bounded, quoted.
const name = (tool: string): string => `'${oneLine(tool, 64)}'`

/** What the model is told about its loop: the same words on the nudge and the forced turn. */
export function nudgeText(pattern: NoProgressPattern, tools: readonly string[], count: number, detail: string | undefined): string {
  switch (pattern) {
    case 'repeated-call':
      return `NO_PROGRESS: you have called ${name(tools[0] ?? '')} with the same arguments ${count} times in a row; another identical call cannot tell you anything new. Use what it already returned, change the arguments, take another step, or give your answer.`
    case 'repeated-error':
      return `NO_PROGRESS: ${name(tools[0] ?? '')} has failed ${count} times in a row with the same error (${oneLine(detail ?? '', 160)}). Do not retry it the same way: fix what the error names, use another tool, or tell the user what blocks you.`
    case 'ping-pong':
      return `NO_PROGRESS: you are alternating between ${tools.map(name).join(' and ')} (${count} calls) without learning anything new. Stop alternating: use the results you have, take a different step, or give your answer.`
    default:
      return `NO_PROGRESS: you have written the same message ${count} times in a row. Do not repeat it: take a different step or give your answer.`
  }
}
