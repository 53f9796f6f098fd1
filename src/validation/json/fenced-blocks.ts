const FENCE = '```'

/** The body of one markdown code fence, where it starts in the text, and its info string (`json`, `python`, `''`). */
export interface FencedBlock {
  readonly content: string
  readonly start: number
  readonly lang: string
}

/**
 * Lists up to `max` markdown code fences (```json, plain ``` or any other tag) in order. A fence
 * left open at the end of the text (a truncated answer) runs to the end. Linear in the text.
 */
export function findFencedBlocks(text: string, max: number): FencedBlock[] {
  const blocks: FencedBlock[] = []
  let from = 0
  while (blocks.length < max) {
    const open = text.indexOf(FENCE, from)
    if (open < 0) break
    const lineEnd = text.indexOf('\n', open + FENCE.length)
    const sameLineClose = text.indexOf(FENCE, open + FENCE.length)
    if (sameLineClose >= 0 && (lineEnd < 0 || sameLineClose < lineEnd)) {
      // A one-line fence: ```json {"a": 1}```
      const inline = text.slice(open + FENCE.length, sameLineClose)
      const tag = /^[A-Za-z][\w+-]*\s+/.exec(inline)?.[0] ?? ''
      blocks.push({ content: inline.slice(tag.length), start: open + FENCE.length + tag.length, lang: tag.trim().toLowerCase() })
      from = sameLineClose + FENCE.length
      continue
    }
    if (lineEnd < 0) break
    const close = text.indexOf(FENCE, lineEnd + 1)
    const lang = text
      .slice(open + FENCE.length, lineEnd)
      .trim()
      .toLowerCase()
    blocks.push({ content: text.slice(lineEnd + 1, close < 0 ? text.length : close), start: lineEnd + 1, lang })
    if (close < 0) break
    from = close + FENCE.length
  }
  return blocks
}
