// Opening and closing tags of blocks (`<tool_call>`, `</tool_call>`), as `findJsonSegments` reads them.
const TAG = /<(\/?)([A-Za-z_][\w-]*)>/g

/**
 * Whether an answer made of tagged blocks stops in the middle of one: it ends inside a tag
 * (`…}\n</tool_c`), or it opens a block again after having closed one and never closes it
 * (`…</tool_call>\n<tool_call>\n{"na`). A model that closes its blocks closes the last one too: such
 * an answer was cut, whatever the provider's stop reason, and taking the blocks before the cut would
 * drop the calls the model was writing. One linear pass.
 *
 * @example
 * endsMidBlock('<tool_call>{"name": "a"}</tool_call>\n<tool_ca') // true
 */
export function endsMidBlock(text: string): boolean {
  const trimmed = text.trimEnd()
  const names = new Set<string>()
  let lastOpen = -1
  let lastClose = -1
  let closedBefore = false
  for (const match of trimmed.matchAll(TAG)) {
    const name = match[2] as string
    names.add(name)
    if (match[1] === '/') {
      lastClose = match.index
      closedBefore = true
    } else if (closedBefore) lastOpen = match.index
  }
  if (names.size === 0) return false
  if (lastOpen > lastClose) return true
  const lt = trimmed.lastIndexOf('<')
  if (lt < 0 || trimmed.length - lt > 64) return false
  const tail = trimmed.slice(lt)
  if (tail.includes('>')) return false
  for (const name of names) if (`<${name}>`.startsWith(tail) || `</${name}>`.startsWith(tail)) return true
  return false
}
