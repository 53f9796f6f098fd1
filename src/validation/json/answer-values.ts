import type { JsonSegment } from './json-segments.ts'

/**
 * The values that make up a final answer, of all the JSON-looking values in it: its only value, or
 * its tool-call blocks (one per call, joined into a list in order) when every value sits in one.
 * Several values outside tool-call blocks (a value the model retracted, "Actually, the correct amount
 * is ...", or a prose example after a tagged call) are no answer at all: `several` says how many
 * values there are and how many sit outside tool-call blocks, for "return exactly one" feedback.
 * Never one value picked out of several.
 *
 * @example
 * answerValues(findJsonSegments('{"amount": 5} Actually: {"amount": 6}')) // { several: 2, outside: 2 }
 */
export function answerValues(
  segments: readonly JsonSegment[],
): { readonly values: readonly JsonSegment[] } | { readonly several: number; readonly outside: number } {
  if (segments.length <= 1) return { values: segments }
  const outside = segments.filter((s) => !s.tagged).length
  return outside === 0 ? { values: segments } : { several: segments.length, outside }
}

/** The feedback for an answer holding `several` JSON values, `outside` of them outside tool-call blocks. */
export function severalValuesMessage(answer: { readonly several: number; readonly outside: number }): string {
  const where = answer.outside < answer.several ? ` (${answer.outside} of them outside tool-call blocks)` : ''
  return `the answer holds ${answer.several} separate JSON values${where}; return exactly one`
}
