/** The body of one `<tool_call>…</tool_call>`-style block and where it starts in the text. */
export interface TaggedBlock {
  readonly tag: string
  readonly content: string
  readonly start: number
}

/** Where one tool-call block's body lies: from after its opening tag to `end` (exclusive). */
export interface TaggedRange {
  readonly tag: string
  readonly start: number
  readonly end: number
}

// Tags that open-weight models wrap calls in: <tool_call>, <function_call>, <functioncall>, <tools>...
// Only names about tools or calls qualify, so prose such as <div> or <li> is never read as JSON.
const TOOL_TAG = /^(?:[a-z_]*(?:tool|function)[a-z_]*s?|calls?)$/i
const OPEN_TAG = /<([A-Za-z_][\w-]*)>/g

/** Whether a tag name is one models wrap tool calls in (`tool_call`, `function_call`, `tools`, `calls`...). */
export function isToolTag(name: string): boolean {
  return TOOL_TAG.test(name)
}

/**
 * The body ranges of up to `max` tool-call blocks, in order. A block ends at its closing tag, at the
 * next opening tag of the same name (models often omit the closer between calls) or at the end of
 * the text (a truncated answer). One linear pass, however many blocks are left unclosed.
 */
export function findTaggedRanges(text: string, max: number): TaggedRange[] {
  const ranges: TaggedRange[] = []
  // Most answers hold no tag at all: no scan state for them.
  if (text.indexOf('<') === -1) return ranges
  // Where each tag's next closer / opener is, so that many unclosed blocks stay one linear pass.
  const next = new Map<string, number>()
  const find = (needle: string, from: number): number => {
    const known = next.get(needle)
    if (known !== undefined && (known < 0 || known >= from)) return known
    const at = text.indexOf(needle, from)
    next.set(needle, at)
    return at
  }
  OPEN_TAG.lastIndex = 0
  for (let match = OPEN_TAG.exec(text); match !== null && ranges.length < max; match = OPEN_TAG.exec(text)) {
    const tag = match[1] as string
    if (!TOOL_TAG.test(tag)) continue
    const start = match.index + match[0].length
    const close = find(`</${tag}>`, start)
    const reopen = find(`<${tag}>`, start)
    const end = Math.min(close < 0 ? text.length : close, reopen < 0 ? text.length : reopen)
    ranges.push({ tag, start, end })
    // A closer never matches OPEN_TAG: scanning on from the block's end skips it.
    OPEN_TAG.lastIndex = end
  }
  return ranges
}

/**
 * Lists up to `max` tool-call blocks in order, with their bodies (see {@link findTaggedRanges}).
 *
 * @example
 * findTaggedBlocks('<tool_call>\n{"name": "f"}\n</tool_call>', 4) // [{ tag: 'tool_call', content: '\n{"name": "f"}\n', start: 11 }]
 */
export function findTaggedBlocks(text: string, max: number): TaggedBlock[] {
  return findTaggedRanges(text, max).map(({ tag, start, end }) => ({ tag, content: text.slice(start, end), start }))
}
