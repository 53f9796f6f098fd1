/** What the repair stage fixed in a candidate, in short stable words. */
export type RepairKind =
  | 'comments'
  | 'trailing-comma'
  | 'single-quotes'
  | 'typographic-quotes'
  | 'python-literals'
  | 'python-tuples'
  | 'inner-quotes'
  | 'closed-brackets'
  | 'unquoted-keys'
  | 'tool-call-tags'
  | 'fenced-block'
  | 'extracted-from-prose'
  | 'joined-blocks'
  | 'other-syntax'

const PYTHON_LITERAL = /^(?:None|True|False)\b/
const KEY_START = /[A-Za-z_$]/

/**
 * Names the syntax faults of a JSON-like candidate in one linear pass (the repair itself is done by
 * `jsonrepair`; this only labels what it will have fixed, for the `repaired` event and attempt log).
 */
export function detectRepairs(candidate: string): RepairKind[] {
  const found = new Set<RepairKind>()
  const stack: string[] = []
  let quote: string | undefined
  for (let i = 0; i < candidate.length; i++) {
    const ch = candidate[i] as string
    if (quote !== undefined) {
      if (ch === '\\') i++
      else if (ch === quote) quote = undefined
      continue
    }
    if (ch === '"') quote = ch
    else if (ch === "'") {
      quote = ch
      found.add('single-quotes')
    } else if (ch === '/' && (candidate[i + 1] === '/' || candidate[i + 1] === '*')) found.add('comments')
    else if (ch === '{' || ch === '[') stack.push(ch)
    else if (ch === '}' || ch === ']') stack.pop()
    else if (ch === ',' && /^\s*[}\]]/.test(candidate.slice(i + 1, i + 64))) found.add('trailing-comma')
    else if ((ch === 'N' || ch === 'T' || ch === 'F') && !isWordChar(candidate[i - 1]) && PYTHON_LITERAL.test(candidate.slice(i, i + 6))) {
      found.add('python-literals')
    } else if (KEY_START.test(ch) && !isWordChar(candidate[i - 1]) && stack[stack.length - 1] === '{' && /^[\w$]*\s*:/.test(candidate.slice(i, i + 128))) {
      found.add('unquoted-keys')
    }
  }
  if (quote !== undefined || stack.length > 0) found.add('closed-brackets')
  return [...found]
}

function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && /[\w$]/.test(ch)
}
