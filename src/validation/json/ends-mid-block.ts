// Opening and closing tags of blocks (`<tool_call>`, `</tool_call>`), as `findJsonSegments` reads them.
const TAG = /<(\/?)([A-Za-z_][\w-]*)>/g
// Blocks whose format closes every block: the Hermes / Qwen `<tool_call>…</tool_call>`, Anthropic's
// `<function_calls>`, and reasoning, which a model closes before its answer. Other tags (granite's
// `<function_call> {...}` has no closer) count only when the answer closes them somewhere.
const CLOSED_TAG = /^(?:tool_calls?|function_calls|think|thinking|reasoning|reflection|scratchpad)$/i
// A chat control token (`<|im_start|>`, `<|eot_id|>`): the model ended its turn, and any block with it.
const CONTROL_TOKEN = /<\|[^|<>\n]{0,64}\|>/
// What could begin a call (or any JSON value) in a block: without it, an opener is a dangling tag.
const CALL_START = /[{[]/

/**
 * Whether an answer stops in the middle of a tagged block, and which: it ends inside a tag
 * (`…}\n</tool_c`), or the last block of a tag whose format closes every block (`<tool_call>`,
 * `<function_calls>`, `<think>`) or of a tag the answer closes elsewhere is opened and never closed, and
 * something that could be a call follows the opener (a `{` or `[`). Such an answer was cut, whatever
 * the provider's stop reason: taking the blocks before the cut would drop the call the model was
 * writing, and taking the one it was writing would accept a call the model never finished. A dangling
 * opener followed by prose or nothing (`</tool_call>\n<tool_call>\nThe result is ...`) is a slip, not
 * a cut, and a block followed by a chat control token (`<|im_start|>`) was ended by the model. The
 * tag's name, or `undefined`. One linear pass.
 *
 * Undetectable, and so accepted: a cut right after a closing tag, or between values in formats
 * without closing tags (one call per line, `<|im_start|>`-separated turns); the provider's stop reason
 * is then the only signal (`truncated`).
 *
 * @example
 * endsMidBlock('<tool_call>{"name": "a"}</tool_call>\n<tool_ca') // 'tool_call'
 * endsMidBlock('<tool_call>{"name": "a"}</tool_call>\n<tool_call>\n{"name": "b", "argu') // 'tool_call'
 */
export function endsMidBlock(text: string): string | undefined {
  // Most answers hold no tag at all.
  if (text.indexOf('<') === -1) return undefined
  const trimmed = text.trimEnd()
  const lastOpen = new Map<string, number>()
  const lastClose = new Map<string, number>()
  for (const match of trimmed.matchAll(TAG)) {
    const name = match[2] as string
    if (match[1] === '/') lastClose.set(name, match.index)
    else lastOpen.set(name, match.index + match[0].length)
  }
  if (lastOpen.size === 0 && lastClose.size === 0) return undefined
  for (const [name, body] of lastOpen) {
    if ((lastClose.get(name) ?? -1) > body) continue
    if (!CLOSED_TAG.test(name) && !lastClose.has(name)) continue
    const rest = trimmed.slice(body)
    if (!CONTROL_TOKEN.test(rest) && CALL_START.test(rest)) return name
  }
  const lt = trimmed.lastIndexOf('<')
  if (lt < 0 || trimmed.length - lt > 64) return undefined
  const tail = trimmed.slice(lt)
  if (tail.includes('>')) return undefined
  for (const name of new Set([...lastOpen.keys(), ...lastClose.keys()])) {
    if (`<${name}>`.startsWith(tail) || `</${name}>`.startsWith(tail)) return name
  }
  return undefined
}
