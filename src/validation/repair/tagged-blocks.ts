/** The body of one `<tool_call>…</tool_call>`-style block and where it starts in the text. */
export interface TaggedBlock {
  readonly tag: string
  readonly content: string
  readonly start: number
}

// Tags that open-weight models wrap calls in: <tool_call>, <function_call>, <functioncall>, <tools>...
// Only names about tools or calls qualify, so prose such as <div> or <li> is never read as JSON.
const TAG_NAME = /^(?:[a-z_]*(?:tool|function)[a-z_]*s?|calls?)$/i
const OPEN_TAG = /<([A-Za-z_][\w-]*)>/g

/**
 * Lists up to `max` tool-call blocks in order. A block ends at its closing tag, at the next opening
 * tag of the same name (models often omit the closer between calls) or at the end of the text
 * (a truncated answer).
 *
 * @example
 * findTaggedBlocks('<tool_call>\n{"name": "f"}\n</tool_call>', 4) // [{ tag: 'tool_call', content: '\n{"name": "f"}\n', start: 11 }]
 */
export function findTaggedBlocks(text: string, max: number): TaggedBlock[] {
  const blocks: TaggedBlock[] = []
  OPEN_TAG.lastIndex = 0
  for (let match = OPEN_TAG.exec(text); match !== null && blocks.length < max; match = OPEN_TAG.exec(text)) {
    const tag = match[1] as string
    if (!TAG_NAME.test(tag)) continue
    const start = match.index + match[0].length
    const close = text.indexOf(`</${tag}>`, start)
    const reopen = text.indexOf(`<${tag}>`, start)
    const ends = [close, reopen].filter((i) => i >= 0)
    const end = ends.length === 0 ? text.length : Math.min(...ends)
    blocks.push({ tag, content: text.slice(start, end), start })
    OPEN_TAG.lastIndex = end === close ? close + tag.length + 3 : end
  }
  return blocks
}
