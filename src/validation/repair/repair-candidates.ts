import { findJsonSegments } from '../json/json-segments.ts'
import type { RepairKind } from './detect-repairs.ts'

/** A JSON-looking value of a model's answer, and how it was cut out of the answer. */
export interface RepairCandidate {
  readonly text: string
  readonly via: readonly RepairKind[]
}

/**
 * The JSON-looking values of an answer, in order (see `findJsonSegments`): every one of them is
 * repaired and accepted together, or none is. Each names where it came from: a tool-call tag block,
 * a fenced block, or prose around it.
 *
 * @example
 * findRepairCandidates("Sure: {'a': 1}") // [{ text: "{'a': 1}", via: ['extracted-from-prose'] }]
 */
export function findRepairCandidates(text: string): RepairCandidate[] {
  const trimmedStart = text.length - text.trimStart().length
  return findJsonSegments(text).map((segment) => {
    const via: RepairKind[] = []
    if (segment.tagged) via.push('tool-call-tags')
    else if (segment.fenced) via.push('fenced-block')
    else if (segment.start !== trimmedStart || text.trimEnd().length !== segment.start + segment.text.length) via.push('extracted-from-prose')
    return { text: segment.text, via }
  })
}
