const QUOTE = 34
const BACKSLASH = 92
const OPEN_BRACE = 123
const OPEN_BRACKET = 91
const CLOSE_BRACE = 125
const CLOSE_BRACKET = 93

/**
 * Finds where nesting of objects and arrays, outside strings, first goes deeper than `maxDepth`;
 * `-1` when it never does. One linear pass, so `JSON.parse` never sees input deep enough to
 * overflow the stack (V8's parser recurses per level).
 */
export function findExcessiveNesting(text: string, maxDepth: number): number {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === BACKSLASH) i++
      else if (code === QUOTE) inString = false
    } else if (code === QUOTE) inString = true
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth++
      if (depth > maxDepth) return i
    } else if ((code === CLOSE_BRACE || code === CLOSE_BRACKET) && depth > 0) depth--
  }
  return -1
}
