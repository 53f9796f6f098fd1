// Reasoning blocks models write before their answer (DeepSeek-R1, QwQ, Qwen3: <think>; others <thinking>, <reasoning>).
const REASONING_OPEN = /<(think|thinking|reasoning)>/gi

/**
 * The text with every reasoning block (`<think>…</think>`, `<thinking>`, `<reasoning>`) blanked out,
 * tags included, offsets kept (each character becomes a space, line breaks stay): a draft value in
 * the model's reasoning is never taken as its answer. A block never closed runs to the end of the
 * text (the answer was cut inside the reasoning: see `endsMidBlock`). The text itself when it holds
 * no such block. Linear.
 *
 * @example
 * withoutReasoning('<think>{"a": 1}?</think>{"a": 2}') // 24 spaces, then '{"a": 2}'
 */
export function withoutReasoning(text: string): string {
  // Most answers hold no tag at all.
  if (text.indexOf('<') === -1) return text
  REASONING_OPEN.lastIndex = 0
  let match = REASONING_OPEN.exec(text)
  if (match === null) return text
  const parts: string[] = []
  const lower = text.toLowerCase()
  let from = 0
  while (match !== null) {
    const closer: string = `</${(match[1] as string).toLowerCase()}>`
    const close = lower.indexOf(closer, match.index + match[0].length)
    const end: number = close < 0 ? text.length : close + closer.length
    parts.push(text.slice(from, match.index), blank(text.slice(match.index, end)))
    from = end
    REASONING_OPEN.lastIndex = end
    match = end < text.length ? REASONING_OPEN.exec(text) : null
  }
  parts.push(text.slice(from))
  return parts.join('')
}

/** Whether the text holds a reasoning block. */
export function holdsReasoning(text: string): boolean {
  REASONING_OPEN.lastIndex = 0
  return text.indexOf('<') !== -1 && REASONING_OPEN.test(text)
}

function blank(block: string): string {
  return block.replace(/[^\n]/g, ' ')
}
