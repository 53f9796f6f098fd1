import { answerValues } from '../json/answer-values.ts'
import { findJsonSegments } from '../json/json-segments.ts'
import type { RepairKind } from './detect-repairs.ts'

/** A JSON-looking value of a model's answer, and how it was cut out of the answer. */
export interface RepairCandidate {
  readonly text: string
  readonly via: readonly RepairKind[]
  /** Text follows the value in the answer (a closing tag, a fence, prose): the model did not stop inside it. */
  readonly blockEnded: boolean
}

/**
 * The JSON-looking values that make up an answer, in order (see `answerValues`: its only value, or
 * its parallel calls; none when it holds other values with prose between them): every one of
 * them is repaired and accepted together, or none is. Each names where it came from: a tool-call tag block,
 * a fenced block, or prose around it.
 *
 * @example
 * findRepairCandidates("Sure: {'a': 1}") // [{ text: "{'a': 1}", via: ['extracted-from-prose'], blockEnded: false }]
 */
export function findRepairCandidates(text: string): RepairCandidate[] {
  const trimmedStart = text.length - text.trimStart().length
  const end = text.trimEnd().length
  const answer = answerValues(findJsonSegments(text), text)
  if ('several' in answer) return []
  return answer.values.map((segment) => {
    const via: RepairKind[] = []
    if (segment.tagged) via.push('tool-call-tags')
    else if (segment.fenced) via.push('fenced-block')
    else if (segment.start !== trimmedStart || text.trimEnd().length !== segment.start + segment.text.length) via.push('extracted-from-prose')
    return { text: segment.text, via, blockEnded: segment.start + segment.text.trimEnd().length < end }
  })
}
