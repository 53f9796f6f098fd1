const FENCE = /```(?:json)?\s*\n?([\s\S]*?)```/i

/**
 * The JSON value in a previous answer: the whole text, a fenced block, or the span from the first
 * `{`/`[` to the last `}`/`]`. `undefined` when none parses (e.g. the answer was cut short).
 */
export function extractJson(text: string): { readonly value: unknown } | undefined {
  const candidates = [text.trim()]
  const fenced = FENCE.exec(text)?.[1]
  if (fenced !== undefined) candidates.push(fenced.trim())
  const start = text.search(/[{[]/)
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'))
  if (start >= 0 && end > start) candidates.push(text.slice(start, end + 1))
  for (const candidate of candidates) {
    try {
      return { value: JSON.parse(candidate) as unknown }
    } catch {
      // Not this shape; try the next one.
    }
  }
  return undefined
}
