/** Where a streamed answer's JSON starts: not known yet, at `offset`, or nowhere (not a JSON answer). */
export type JsonStart = { readonly found: 'undecided' } | { readonly found: 'json'; readonly offset: number } | { readonly found: 'none' }

const FENCE = /^```[a-zA-Z0-9_-]*[ \t]*\r?\n/
const FENCE_LINE_SO_FAR = /^`{1,3}[a-zA-Z0-9_-]*[ \t]*$/

/**
 * Finds the opening `{` or `[` of the answer's text so far, after whitespace and optional markdown
 * fence lines. Any other first character means the answer is not JSON to check while it streams.
 *
 * @example
 * findJsonStart('```json\n{"a"') // { found: 'json', offset: 8 }
 */
export function findJsonStart(prelude: string): JsonStart {
  let text = prelude
  let offset = 0
  for (;;) {
    const trimmed = text.trimStart()
    offset += text.length - trimmed.length
    if (trimmed === '') return { found: 'undecided' }
    const first = trimmed[0]
    if (first === '{' || first === '[') return { found: 'json', offset }
    if (first !== '`') return { found: 'none' }
    const fence = FENCE.exec(trimmed)
    if (fence === null) {
      // Still inside the fence line, or not a fence at all.
      return FENCE_LINE_SO_FAR.test(trimmed) ? { found: 'undecided' } : { found: 'none' }
    }
    offset += fence[0].length
    text = trimmed.slice(fence[0].length)
  }
}
