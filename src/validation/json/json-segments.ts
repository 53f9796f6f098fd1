import { findFencedBlocks } from './fenced-blocks.ts'
import { withoutReasoning } from './reasoning-blocks.ts'
import { findTaggedRanges, isToolTag } from './tagged-blocks.ts'

/** One JSON-looking value in a model's answer, in order of appearance. */
export interface JsonSegment {
  /** The value's text: from its opening bracket to its closing one, or to where it was cut off. */
  readonly text: string
  /** Offset of the opening bracket in the answer. */
  readonly start: number
  /** Whether its brackets balanced; an unclosed value runs to the next block boundary or the end. */
  readonly closed: boolean
  /** Inside a markdown code fence. */
  readonly fenced: boolean
  /** Inside a code fence of a language other than JSON (```python, ```ts...). */
  readonly code: boolean
  /** Inside a tool-call tag block (`<tool_call>…`). */
  readonly tagged: boolean
}

/**
 * Most JSON values one answer may hold: an answer with more is refused whole (never cut to this
 * many, which would drop the rest), so hostile answers of millions of tiny values cost little.
 */
export const MAX_JSON_VALUES = 1000

const QUOTE = 34
const BACKSLASH = 92
const CLOSER_OF: Readonly<Record<number, number>> = { 123: 125, 91: 93 }
// Tool-call tags (<tool_call>, </tool_call>...), chat-template control tokens (<|im_start|>) and
// code fences: where one block of an answer ends.
const BOUNDARY_AT = /<\/?([A-Za-z_][\w-]*)>|<\|[^|<>\n]{0,64}\|>|```/y

/**
 * Lists every JSON-looking value of an answer, in order: each object or array that starts like
 * JSON (`{"`, `{'`, `{}`, `{key:`, `[{`, `[[`, `["`, `[1`, `[-`, `[]`, `[true`, a comment...; prose brackets
 * such as `[note]` or `{name}` are skipped), scanned to its balanced end, strings respected.
 * A value whose brackets never balance is cut where its block ends: at a tool-call tag, a chat
 * control token (`<|im_start|>`) or a code fence outside any string, else at the end of the
 * answer. A JSON code fence (```json, ```jsonc, ```json5, ```jsonl or untagged) holding a bare string,
 * number or literal is one value too. One linear pass; it stops after `MAX_JSON_VALUES + 1` values,
 * for the caller to refuse the answer (the list is never cut to a number of values to accept).
 * Reasoning blocks (`<think>…</think>`, `<thinking>`, `<reasoning>`) are skipped: a draft value there
 * is never a value of the answer.
 *
 * Arrays of scalars only (`[1]`, `[2, 3]`, `["note"]`) in prose or in a code fence of another
 * language (```python, ```ts) are left out when the answer also holds an object or an array of
 * objects or arrays: citations, footnotes, link lists and code samples, never a call. Every other
 * value is listed, objects in prose or code fences included (models drop the `<tool_call>` opener
 * of their later calls, or write calls in ```python / ```xml fences): the extraction and the repair
 * stage take all of them or none (DESIGN.md: repair is all or nothing), so no call the model wrote
 * is dropped silently.
 *
 * @example
 * findJsonSegments('<tool_call>{"name": "a"}</tool_call>\n<tool_call>{"name": "b"}</tool_call>').map((s) => s.text)
 * // ['{"name": "a"}', '{"name": "b"}']
 */
export function findJsonSegments(answer: string): JsonSegment[] {
  // A value in the model's reasoning (`<think>…</think>`) is a draft, never part of the answer.
  const text = withoutReasoning(answer)
  // Blocks beyond these many only label values of an answer that is refused for holding too many.
  const fences = findFencedBlocks(text, 4 * MAX_JSON_VALUES)
  const fenceAt = rangeCursor(fences.map((b) => ({ start: b.start, end: b.start + b.content.length })))
  const fenced = (at: number): boolean => fenceAt(at) >= 0
  const code = (at: number): boolean => !JSON_FENCE.test(fences[fenceAt(at)]?.lang ?? '')
  const tagRange = rangeCursor(findTaggedRanges(text, 4 * MAX_JSON_VALUES))
  const tagged = (at: number): boolean => tagRange(at) >= 0
  // A JSON fence may hold a bare string or number: the whole body is then the value.
  const scalars = fences.filter(isScalarFence)
  const segments: JsonSegment[] = []
  let from = 0
  // An answer that opens with a bracket and holds nothing else that looks like JSON is that value,
  // however unlike JSON it starts (`[a, b]`, `{2: 3}`); a bracketed label before JSON (`[Answer]
  // {...}`) is not, and neither is a wrapper around JSON-looking values, which are taken themselves.
  const lead = text.length - text.trimStart().length
  const leadCode = text.charCodeAt(lead)
  // The first JSON-looking start; kept while the scan has not passed it (no other start lies before it).
  let start = nextJsonStart(text, lead)
  if ((leadCode === 123 || leadCode === 91) && start < 0) {
    const end = scanValue(text, lead)
    const stop = end > 0 ? end : -end
    if (stop - lead > 1) {
      segments.push({ text: text.slice(lead, stop), start: lead, closed: end > 0, fenced: fenced(lead), code: code(lead), tagged: tagged(lead) })
      from = stop
    }
  }
  for (let s = 0; ; ) {
    if (start >= 0 && start < from) start = nextJsonStart(text, from)
    const scalar = scalars[s]
    if (scalar !== undefined && (start < 0 || scalar.start < start)) {
      s++
      if (scalar.start < from) continue
      const lead = scalar.content.length - scalar.content.trimStart().length
      segments.push({ text: scalar.content.trim(), start: scalar.start + lead, closed: true, fenced: true, code: false, tagged: tagged(scalar.start + lead) })
      from = scalar.start + scalar.content.length
      continue
    }
    if (start < 0 || segments.length > MAX_JSON_VALUES) break
    const end = scanValue(text, start)
    const closed = end > 0
    const stop = closed ? end : -end
    const value = text.slice(start, stop)
    // A lone bracket cut off by a block boundary (`[```json ...```]`) holds nothing.
    if (closed || value.trim().length > 1) segments.push({ text: value, start, closed, fenced: fenced(start), code: code(start), tagged: tagged(start) })
    from = stop
  }
  return segments.length > MAX_JSON_VALUES ? segments : preferred(segments)
}

/**
 * The list without the arrays of scalars only that lie outside tool-call tags and JSON fences, when
 * the answer holds an object or an array of objects or arrays: those are citations, footnotes, link
 * lists or code samples (`[1]`, `[2, 3]`, `["note"]`, ```python `x = [1, 2]`), never a call. The
 * list itself when nothing is left out.
 */
function preferred(segments: JsonSegment[]): JsonSegment[] {
  if (segments.length < 2) return segments
  let structured = false
  let loose = 0
  for (const segment of segments) {
    if (!isFlatArray(segment)) structured = true
    else if (isLoose(segment)) loose++
  }
  return structured && loose > 0 ? segments.filter((s) => !(isLoose(s) && isFlatArray(s))) : segments
}

/** Outside what the model marked as data: in prose or in a code fence of another language. */
function isLoose(segment: JsonSegment): boolean {
  return !segment.tagged && (!segment.fenced || segment.code)
}

/** A closed array holding no object or array (`[1]`, `[2, 3]`, `["note"]`), strings respected. */
function isFlatArray(segment: JsonSegment): boolean {
  const { text } = segment
  if (!segment.closed || text.charCodeAt(0) !== 91) return false
  let inString = false
  for (let i = 1; i < text.length - 1; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === BACKSLASH) i++
      else if (code === QUOTE) inString = false
    } else if (code === QUOTE) inString = true
    else if (code === 123 || code === 91) return false
  }
  return true
}

/**
 * From an opening bracket at `start`: the end (exclusive) of the balanced value as a positive
 * number, or, when it never balances, minus the position where its block ends (a boundary outside
 * any string, a closer that does not match, or the end of the text).
 */
function scanValue(text: string, start: number): number {
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
      if (expected.pop() !== code) return -boundaryAfter(text, i)
      if (expected.length === 0) return i + 1
    } else if ((code === 60 || code === 96) && isBoundary(text, i)) return -i
  }
  return -text.length
}

/** After a closer that does not match, the value's block still runs to the next boundary. */
function boundaryAfter(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if ((code === 60 || code === 96) && isBoundary(text, i)) return i
  }
  return text.length
}

function isBoundary(text: string, at: number): boolean {
  BOUNDARY_AT.lastIndex = at
  const match = BOUNDARY_AT.exec(text)
  if (match === null) return false
  return match[1] === undefined || isToolTag(match[1])
}

/**
 * The next position at or after `from` where a value starts like JSON: `{` followed by `"`, `'`,
 * `}` or `key:`, or `[` followed by a value start (`{ [ " ' ] - digit`, `true`, `false`, `null`),
 * or either followed by a comment (`//`, `/*`).
 */
function nextJsonStart(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code !== 123 && code !== 91) continue
    let j = i + 1
    while (j < text.length && isSpace(text.charCodeAt(j))) j++
    const next = text[j]
    // A bracket with nothing after it opens nothing.
    if (next === undefined) return -1
    if (
      matchesAt(COMMENT, text, j) ||
      (code === 123 ? next === '"' || next === "'" || next === '}' || matchesAt(UNQUOTED_KEY, text, j) : matchesAt(ARRAY_START, text, j))
    )
      return i
  }
  return -1
}

// Sticky: matched where the value's first character is, without cutting the text.
const UNQUOTED_KEY = /[A-Za-z_$][\w$]*\s*:/y
const COMMENT = /\/[/*]/y
// `[("f", {...})]`: a Python list of tuples, which the repair stage reads as arrays.
const ARRAY_START = /(?:["'{[\]\d-]|\(\s*["']|(?:true|false|null)(?![\w$]))/y
// A key and its colon are looked for within this many characters of the bracket's first non-space.
const LOOKAHEAD = 80

/** Whether a sticky pattern matches at `at`, ending within {@link LOOKAHEAD} characters of it. */
function matchesAt(pattern: RegExp, text: string, at: number): boolean {
  pattern.lastIndex = at
  return pattern.test(text) && pattern.lastIndex - at <= LOOKAHEAD
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13
}

// Fence languages that hold data: JSON and its dialects, or no language at all.
const JSON_FENCE = /^(?:json[5cl]?|ndjson)?$/
const SCALAR = /^(?:["\d-]|(?:true|false|null)$)/

function isScalarFence(block: { readonly content: string; readonly lang: string }): boolean {
  return JSON_FENCE.test(block.lang) && SCALAR.test(block.content.trim())
}

/**
 * The index of the range of sorted, disjoint ranges that holds a position, or -1, for positions
 * asked in increasing order (asking again for the same position is allowed).
 */
function rangeCursor(ranges: readonly { readonly start: number; readonly end: number }[]): (at: number) => number {
  let i = 0
  return (at) => {
    while (i < ranges.length && (ranges[i] as { readonly end: number }).end <= at) i++
    const range = ranges[i]
    return range !== undefined && at >= range.start && at < range.end ? i : -1
  }
}
