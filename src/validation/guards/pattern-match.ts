/** What a shipped pattern guard found. */
export type PatternKind = 'card' | 'email' | 'phone' | 'api-key' | 'private-key' | 'instruction'

/** One match of a pattern guard: what it is, which rule found it, and where (UTF-16 offsets in the text scanned). */
export interface PatternMatch {
  readonly kind: PatternKind
  /** The rule that matched, e.g. `luhn-card`, `openai-key`, `ignore-previous`. */
  readonly rule: string
  readonly start: number
  readonly end: number
}

// Past this, a text is scanned by its head: a guard answers in bounded time whatever a tool returns.
export const MAX_SCAN_CHARS = 1_000_000

/** One named pattern of a guard: what its matches are, and a check each match must also pass. */
export interface PatternRule {
  readonly kind: PatternKind
  /** Named in each match's `rule`. */
  readonly rule: string
  /** Global (`g`) and linear-time. */
  readonly pattern: RegExp
  /** A match counts only when this accepts its text (a card's Luhn check); absent: every match counts. */
  readonly accept?: (found: string) => boolean
}

/** Every match of the rule's pattern over the bounded text, as {@link PatternMatch}es. */
export function matchesOf(text: string, { kind, rule, pattern, accept }: PatternRule): PatternMatch[] {
  const out: PatternMatch[] = []
  const scanned = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text
  pattern.lastIndex = 0
  for (let m = pattern.exec(scanned); m !== null; m = pattern.exec(scanned)) {
    if (m[0] === '') {
      pattern.lastIndex++
      continue
    }
    if (accept === undefined || accept(m[0])) out.push({ kind, rule, start: m.index, end: m.index + m[0].length })
  }
  return out
}

/** The matches without those inside an earlier, longer one (a card's digits are no phone number). */
export function withoutOverlaps(matches: readonly PatternMatch[]): PatternMatch[] {
  const sorted = [...matches].sort((a, b) => a.start - b.start || b.end - b.start - (a.end - a.start))
  const out: PatternMatch[] = []
  for (const m of sorted) {
    const last = out.at(-1)
    if (last !== undefined && m.start < last.end) continue
    out.push(m)
  }
  return out
}
