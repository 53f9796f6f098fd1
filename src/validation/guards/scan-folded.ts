import { INVISIBLE_CHAR, INVISIBLE_ANY } from './normalize-for-scan.ts'
import { MAX_SCAN_CHARS, type PatternMatch } from './pattern-match.ts'

const NOT_ASCII = /[\u0080-\uFFFF]/

/**
 * The matches of `scan` over `text` as written and over `text` folded as a reader sees it: each
 * character by its NFKC form (fullwidth `４` and `＠` are `4` and `@`, a no-break space a space) and
 * invisible characters (zero-width, bidi controls, tags) left out, case and script kept (a key's
 * letters are its own). A key split by a zero-width space, or a card in fullwidth digits, is then
 * found too; a folded match covers every character it came from, the invisible ones inside
 * included, and one that overlaps a match of the text as written is joined with it, so a redaction
 * leaves no part of either. Offsets are the text's own. Linear (the first {@link MAX_SCAN_CHARS}).
 */
export function scanFolded(text: string, scan: (text: string) => PatternMatch[]): PatternMatch[] {
  const scanned = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text
  const written = scan(scanned)
  // Most text reads as it is written: the walk below is only for text with something to fold.
  if (!NOT_ASCII.test(scanned) || (!INVISIBLE_ANY.test(scanned) && scanned.normalize('NFKC') === scanned)) return written
  let folded = ''
  // For each UTF-16 unit of the folded text: where the character it came from starts and ends.
  const starts: number[] = []
  const ends: number[] = []
  for (let i = 0; i < scanned.length; ) {
    const cp = scanned.codePointAt(i) as number
    const size = cp > 0xffff ? 2 : 1
    const ch = scanned.slice(i, i + size)
    const read = cp < 0xa0 ? ch : INVISIBLE_CHAR.test(ch) ? '' : ch.normalize('NFKC')
    folded += read
    for (let k = 0; k < read.length; k++) {
      starts.push(i)
      ends.push(i + size)
    }
    i += size
  }
  if (folded === scanned) return written
  const back = scan(folded).map((m) => ({ ...m, start: starts[m.start] ?? scanned.length, end: ends[m.end - 1] ?? scanned.length }))
  return joined([...written, ...back])
}

/** The matches in order, each overlapping run joined into one (the first's kind and rule, the union of their spans). */
function joined(matches: PatternMatch[]): PatternMatch[] {
  const out: PatternMatch[] = []
  for (const m of matches.sort((a, b) => a.start - b.start || b.end - a.end)) {
    const last = out.at(-1)
    if (last !== undefined && m.start < last.end) {
      if (m.end > last.end) out[out.length - 1] = { ...last, end: m.end }
      continue
    }
    out.push(m)
  }
  return out
}
