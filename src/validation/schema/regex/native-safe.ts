/**
 * Whether a pattern has no quantifier (`*`, `+`, `?`, `{n}`), backreference or lookaround: a
 * backtracking engine then tries each input position at most once per alternative, in time linear in
 * the input, so it may run as it is (`^x-`, `^(foo|bar)$`).
 */
export function isQuantifierFree(source: string): boolean {
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]
    if (ch === '\\') {
      const next = source[i + 1] ?? ''
      if (/[1-9k]/.test(next) && !inClass) return false
      i++
    } else if (inClass) inClass = ch !== ']'
    else if (ch === '[') inClass = true
    else if (ch === '*' || ch === '+' || ch === '{') return false
    else if (ch === '?' && source[i - 1] !== '(') return false
    else if (ch === '(' && source[i + 1] === '?' && source[i + 2] !== ':') return false
  }
  return true
}

const QUANTIFIER = /^(?:[*+?]|\{(\d+)(?:(,)(\d*))?\})\??/

/**
 * Whether the JS engine runs a pattern in time linear in the input whatever the input: anchored at
 * the start (`^`), a flat sequence of single characters, escapes and classes (no group, no
 * alternation), with at most one of them repeated a variable number of times (`^[a-z0-9-]{1,64}$`,
 * `^\d{4}-\d{2}-\d{2}$`, `^[A-Z]{2}\d+$`). From its one start, the only choice a backtracking engine
 * has is how far that one item reaches: at most one try per input position. Such patterns run
 * natively (much faster than RE2 in JavaScript, and without RE2's cost for large counts); every
 * other pattern runs on RE2.
 */
export function isNativeSafe(source: string): boolean {
  if (!source.startsWith('^')) return false
  let variable = 0
  let i = 1
  while (i < source.length) {
    const ch = source[i] as string
    if (ch === '$' && i === source.length - 1) return true
    if ('()|^$*+?{}'.includes(ch)) return false
    if (ch === '\\') {
      const next = source[i + 1] ?? ''
      if (/[1-9k]/.test(next)) return false
      i += escapeLength(source, i)
    } else if (ch === '[') {
      const end = classEnd(source, i)
      if (end < 0) return false
      i = end + 1
    } else i += source.codePointAt(i) !== undefined && (source.codePointAt(i) as number) > 0xffff ? 2 : 1
    const quantifier = QUANTIFIER.exec(source.slice(i))
    if (quantifier === null) continue
    const fixed = quantifier[1] !== undefined && (quantifier[2] === undefined || quantifier[3] === quantifier[1])
    if (!fixed && ++variable > 1) return false
    i += quantifier[0].length
  }
  return true
}

function escapeLength(source: string, at: number): number {
  const rest = source.slice(at)
  const match = /^\\(?:u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|c[A-Za-z]|[pP]\{[^}]*\}|.)/su.exec(rest)
  return match === null ? 2 : match[0].length
}

function classEnd(source: string, open: number): number {
  for (let i = open + 1; i < source.length; i++) {
    if (source[i] === '\\') i++
    else if (source[i] === ']') return i
  }
  return -1
}
