import { assertString } from '../../model/argument-checks.ts'
import { cutAt } from '../schema/received.ts'

/** Longest path quoted in a feedback line, a failure summary or a log line; a longer one ends with `…`. */
export const MAX_QUOTED_PATH = 120
/** Longest description of one issue (a validator's message, a list of allowed values); a longer one ends with `…`. */
export const MAX_PROBLEM = 200
/** Issues listed in a feedback message before `- … and N more issues`. */
export const DEFAULT_MAX_ISSUES = 20
/** Default longest retry tail (echoed output and feedback together), in characters. */
export const DEFAULT_MAX_FEEDBACK_CHARS = 4000

/**
 * A text as one bounded line: whitespace runs become one space, and beyond `max` characters it is
 * cut with `…`. Every model-controlled string quoted in prose (keys, paths, values, messages) goes
 * through this, so one hostile key cannot blow up the feedback.
 */
export function oneLine(text: string, max: number): string {
  assertString(text, 'oneLine: text')
  if (text.length <= max && isOneLine(text)) return text
  // Cut before flattening: a 4 MB message costs no more than its first few hundred characters.
  const head = text.length > max * 4 ? text.slice(0, max * 4) : text
  const flat = head.replace(/\s+/g, ' ').trim()
  return flat.length > max || head !== text ? `${cutAt(flat, max)}…` : flat
}

/** True when flattening would change nothing: no leading, trailing or repeated space, no other whitespace. */
function isOneLine(text: string): boolean {
  let previousSpace = true
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 32) {
      if (previousSpace) return false
      previousSpace = true
    } else if (
      c < 32 ||
      c === 0x85 ||
      c === 0xa0 ||
      c === 0x1680 ||
      (c >= 0x2000 && c <= 0x200a) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0x202f ||
      c === 0x205f ||
      c === 0x3000 ||
      c === 0xfeff
    ) {
      return false
    } else previousSpace = false
  }
  return !previousSpace || text.length === 0
}
