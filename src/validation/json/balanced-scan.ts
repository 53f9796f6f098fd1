const QUOTE = 34
const BACKSLASH = 92
const CLOSER_OF: Readonly<Record<number, number>> = { 123: 125, 91: 93 }

/**
 * From an opening `{` or `[` at `start`, finds the end (exclusive) of the balanced value, skipping
 * brackets inside strings; `-1` when a closer does not match or the text ends first. Linear.
 */
export function scanBalanced(text: string, start: number): number {
  const expected: number[] = []
  let inString = false
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === BACKSLASH) i++
      else if (code === QUOTE) inString = false
      continue
    }
    if (code === QUOTE) inString = true
    else if (code === 123 || code === 91) expected.push(CLOSER_OF[code] as number)
    else if (code === 125 || code === 93) {
      if (expected.pop() !== code) return -1
      if (expected.length === 0) return i + 1
    }
  }
  return -1
}

/**
 * The next position at or after `from` where a JSON object or array plausibly starts: `{` followed
 * by `"` or `}`, or `[` followed by a value or `]`. Skips prose brackets such as `[note]`
 * so they do not use up the candidate budget.
 */
export function nextCandidateStart(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code !== 123 && code !== 91) continue
    let j = i + 1
    while (j < text.length && isSpace(text.charCodeAt(j))) j++
    const next = text[j]
    if (next === undefined) return -1
    if (code === 123 ? next === '"' || next === '}' : /["{[\]\d\-tfn]/.test(next)) return i
  }
  return -1
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13
}
