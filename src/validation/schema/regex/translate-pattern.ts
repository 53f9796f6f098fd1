/**
 * An ECMAScript pattern rewritten for RE2: the main pattern, the lookarounds that guarded its start
 * (`^(?!A)(?=B)rest` is `rest` at the start, provided `A` does not and `B` does match there), and
 * whether it needs RE2's lookbehind support.
 */
export type Re2Translation =
  | { readonly ok: true; readonly main: string; readonly guards: readonly { readonly body: string; readonly negated: boolean }[]; readonly lookbehind: boolean }
  | { readonly ok: false; readonly reason: string }

// What ECMAScript's `\s` matches (WhiteSpace and LineTerminator); RE2's `\s` is ASCII only.
const SPACE = '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}'
// ECMAScript's `.` excludes every line terminator; RE2's only `\n`.
const DOT = '[^\\n\\r\\x{2028}\\x{2029}]'
// RE2 refuses counted repetition above 1000.
const MAX_REPEAT = 1000

/** Long General_Category names (ECMAScript accepts both) to the short ones RE2 knows. */
const CATEGORY: Readonly<Record<string, string>> = {
  Letter: 'L',
  Cased_Letter: 'LC',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Combining_Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
}

/**
 * Rewrites an ECMAScript regular expression (as JSON Schema's `pattern` means it, `u` flag) into
 * RE2 syntax with the same meaning: `.` and `\s` keep ECMAScript's line terminators and spaces,
 * `\uXXXX` (surrogate pairs included), `\u{...}`, `\cX`, `\0` and `\p{Long_Name}` become RE2
 * escapes, named groups become `(?P<name>...)`, `X{n,m}` beyond RE2's 1000 is split. Lookarounds
 * at the very start of an anchored pattern become guards checked apart; lookbehinds use RE2JS's
 * linear lookbehind support. Anything RE2 cannot run in linear time (backreferences, other
 * lookaheads) is refused with the reason.
 *
 * @example
 * translatePattern('^(?!test)[a-z]+$') // { ok: true, main: '^[a-z]+$', guards: [{ body: 'test', negated: true }], lookbehind: false }
 */
export function translatePattern(source: string): Re2Translation {
  let rest = source
  const guards: { body: string; negated: boolean }[] = []
  // Leading lookaheads of an anchored pattern: `^(?!A)(?=B)...` tests A and B at position 0.
  if (rest.startsWith('^')) {
    for (let guard = leadingLookahead(rest.slice(1)); guard !== undefined; guard = leadingLookahead(rest.slice(1))) {
      const body = rewrite(guard.body)
      if (!body.ok) return body
      if (body.lookbehind) return { ok: false, reason: 'a lookbehind inside a lookahead' }
      guards.push({ body: body.text, negated: guard.negated })
      rest = `^${rest.slice(1 + guard.length)}`
    }
  }
  const main = rewrite(rest)
  if (!main.ok) return main
  return { ok: true, main: main.text, guards, lookbehind: main.lookbehind }
}

/** A lookahead group at the start of `text`: its body, whether negated, and its length; `undefined` if none. */
function leadingLookahead(text: string): { body: string; negated: boolean; length: number } | undefined {
  if (!text.startsWith('(?=') && !text.startsWith('(?!')) return undefined
  const end = groupEnd(text, 0)
  if (end < 0) return undefined
  return { body: text.slice(3, end), negated: text[2] === '!', length: end + 1 }
}

/** The index of the `)` closing the group opened at `open`, skipping escapes and classes; -1 if none. */
function groupEnd(text: string, open: number): number {
  let depth = 0
  let inClass = false
  for (let i = open; i < text.length; i++) {
    const ch = text[i]
    if (ch === '\\') i++
    else if (inClass) inClass = ch !== ']'
    else if (ch === '[') inClass = true
    else if (ch === '(') depth++
    else if (ch === ')' && --depth === 0) return i
  }
  return -1
}

type Rewrite = { readonly ok: true; readonly text: string; readonly lookbehind: boolean } | { readonly ok: false; readonly reason: string }

function rewrite(source: string): Rewrite {
  let out = ''
  let inClass = false
  let lookbehind = false
  // Where the last atom (a character, a class, a group) started in `out`, for splitting big repeats.
  let atom = -1
  const groups: number[] = []
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string
    if (ch === '\\') {
      const rewritten = rewriteEscape(source, i, inClass)
      if (!rewritten.ok) return rewritten
      if (!inClass) atom = out.length
      out += rewritten.text
      i += rewritten.consumed - 1
      continue
    }
    if (inClass) {
      if (ch === ']') inClass = false
      out += ch
      continue
    }
    if (ch === '[') {
      atom = out.length
      if (source.startsWith('[^]', i)) {
        out += '[\\x{0}-\\x{10FFFF}]'
        i += 2
      } else if (source.startsWith('[]', i)) {
        out += '[^\\x{0}-\\x{10FFFF}]'
        i += 1
      } else {
        inClass = true
        out += source[i + 1] === '^' ? '[^' : '['
        if (source[i + 1] === '^') i++
      }
      continue
    }
    if (ch === '(') {
      if (source.startsWith('(?=', i) || source.startsWith('(?!', i))
        return { ok: false, reason: 'a lookahead that does not guard the start of an anchored pattern' }
      if (source.startsWith('(?<=', i) || source.startsWith('(?<!', i)) {
        lookbehind = true
        groups.push(out.length)
        out += source.slice(i, i + 4)
        i += 3
        continue
      }
      groups.push(out.length)
      if (source.startsWith('(?<', i)) {
        out += '(?P<'
        i += 2
      } else out += ch
      continue
    }
    if (ch === ')') {
      atom = groups.pop() ?? -1
      out += ch
      continue
    }
    if (ch === '.') {
      atom = out.length
      out += DOT
      continue
    }
    if (ch === '{') {
      const repeat = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i))
      if (repeat !== null && atom >= 0 && (Number(repeat[1]) > MAX_REPEAT || Number(repeat[3] ?? 0) > MAX_REPEAT)) {
        const split = splitRepeat(
          out.slice(atom),
          Number(repeat[1]),
          repeat[2] === undefined ? Number(repeat[1]) : repeat[3] === '' ? undefined : Number(repeat[3]),
        )
        if (split === undefined) return { ok: false, reason: `a repetition count above ${MAX_REPEAT * 8}` }
        out = out.slice(0, atom) + split
        i += repeat[0].length - 1
        continue
      }
    }
    if (ch !== '*' && ch !== '+' && ch !== '?' && ch !== '{' && ch !== '|' && ch !== '^' && ch !== '$') atom = out.length
    out += ch
  }
  return { ok: true, text: out, lookbehind }
}

/** `X{min,max}` with counts above 1000 as a sequence of repeats RE2 accepts (same language). */
function splitRepeat(atom: string, min: number, max: number | undefined): string | undefined {
  const parts: string[] = []
  let lo = min
  let hi = max
  while (lo > MAX_REPEAT || (hi !== undefined && hi > MAX_REPEAT)) {
    const takeLo = Math.min(lo, MAX_REPEAT)
    const takeHi = hi === undefined ? undefined : Math.min(hi, MAX_REPEAT)
    parts.push(`(?:${atom}){${takeLo},${takeHi ?? ''}}`)
    lo -= takeLo
    if (hi !== undefined) hi -= takeHi as number
    if (parts.length > 8) return undefined
  }
  if (lo > 0 || hi === undefined || hi > 0) parts.push(`(?:${atom}){${lo},${hi ?? ''}}`)
  return parts.join('')
}

type Escape = { readonly ok: true; readonly text: string; readonly consumed: number } | { readonly ok: false; readonly reason: string }

function rewriteEscape(source: string, at: number, inClass: boolean): Escape {
  const next = source[at + 1]
  if (next === undefined) return { ok: false, reason: 'a pattern ending with a backslash' }
  if (next === 's') return { ok: true, text: inClass ? SPACE : `[${SPACE}]`, consumed: 2 }
  // Inside a class ECMAScript's `\b` is a backspace.
  if (next === 'b' && inClass) return { ok: true, text: '\\x{8}', consumed: 2 }
  if (next === 'S' && !inClass) return { ok: true, text: `[^${SPACE}]`, consumed: 2 }
  if (next === 'c' && /[A-Za-z]/.test(source[at + 2] ?? '')) return { ok: true, text: hexEscape(source.charCodeAt(at + 2) % 32), consumed: 3 }
  if (next === '0' && !/\d/.test(source[at + 2] ?? '')) return { ok: true, text: '\\x{0}', consumed: 2 }
  if (/[1-9]/.test(next) && !inClass) return { ok: false, reason: 'a backreference' }
  if (next === 'k' && source[at + 2] === '<') return { ok: false, reason: 'a named backreference' }
  if (next === 'u') return unicodeEscape(source, at)
  if (next === 'p' || next === 'P') return propertyEscape(source, at)
  return { ok: true, text: `\\${next}`, consumed: 2 }
}

function unicodeEscape(source: string, at: number): Escape {
  const braced = /^\\u\{([0-9A-Fa-f]{1,6})\}/.exec(source.slice(at))
  if (braced !== null) return { ok: true, text: `\\x{${braced[1]}}`, consumed: braced[0].length }
  const unit = /^\\u([0-9A-Fa-f]{4})/.exec(source.slice(at))
  if (unit === null) return { ok: false, reason: 'a malformed \\u escape' }
  const high = parseInt(unit[1] as string, 16)
  const low = /^\\u([0-9A-Fa-f]{4})/.exec(source.slice(at + 6))
  const lowCode = low === null ? -1 : parseInt(low[1] as string, 16)
  // Under the `u` flag a surrogate pair written as two escapes is one code point.
  if (high >= 0xd800 && high <= 0xdbff && lowCode >= 0xdc00 && lowCode <= 0xdfff) {
    return { ok: true, text: hexEscape((high - 0xd800) * 0x400 + (lowCode - 0xdc00) + 0x10000), consumed: 12 }
  }
  return { ok: true, text: hexEscape(high), consumed: 6 }
}

function propertyEscape(source: string, at: number): Escape {
  const match = /^\\([pP])\{([^}]*)\}/.exec(source.slice(at))
  if (match === null) return { ok: false, reason: 'a malformed \\p escape' }
  const [whole, kind, body] = match as unknown as [string, string, string]
  const eq = body.indexOf('=')
  const key = eq < 0 ? '' : body.slice(0, eq)
  const value = eq < 0 ? body : body.slice(eq + 1)
  let name: string | undefined
  if (key === '') name = CATEGORY[value] ?? value
  else if (key === 'General_Category' || key === 'gc') name = CATEGORY[value] ?? value
  else if (key === 'Script' || key === 'sc' || key === 'Script_Extensions' || key === 'scx') name = value
  if (name === undefined) return { ok: false, reason: `the Unicode property ${JSON.stringify(body)}` }
  return { ok: true, text: `\\${kind}{${name}}`, consumed: whole.length }
}

function hexEscape(code: number): string {
  return `\\x{${code.toString(16).toUpperCase()}}`
}
