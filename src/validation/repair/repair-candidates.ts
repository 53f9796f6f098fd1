import { nextCandidateStart, scanBalanced } from '../json/balanced-scan.ts'
import { findFencedBlocks } from '../json/fenced-blocks.ts'
import type { RepairKind } from './detect-repairs.ts'
import { findTaggedBlocks } from './tagged-blocks.ts'

/** A slice of a model's answer worth repairing, and how it was cut out of the answer. */
export interface RepairCandidate {
  readonly text: string
  readonly via: readonly RepairKind[]
}

const MAX_BLOCKS = 8

/**
 * The slices of an answer that may hold its JSON value, most specific first: the tool-call tag
 * blocks (all of them as one array when there are several, then the first), the fenced blocks, the whole
 * text, and the first object or array inside prose (to its balanced end, or to the end of a cut
 * answer). Duplicates are dropped. The schema, not this order, decides which one is accepted.
 */
export function findRepairCandidates(text: string): RepairCandidate[] {
  const out: RepairCandidate[] = []
  const seen = new Set<string>()
  const add = (slice: string, via: readonly RepairKind[]): void => {
    const trimmed = slice.trim()
    if (trimmed === '' || seen.has(trimmed)) return
    seen.add(trimmed)
    out.push({ text: trimmed, via })
  }

  const tagged = findTaggedBlocks(text, MAX_BLOCKS).map((b) => jsonStart(b.content)).filter((b) => b !== '')
  if (tagged.length > 1) add(`[${tagged.join(',\n')}]`, ['tool-call-tags', 'joined-blocks'])
  // Only the first call stands alone: skipping a failing call to accept a later one would drop it silently.
  if (tagged[0] !== undefined) add(tagged[0], ['tool-call-tags'])
  for (const block of findFencedBlocks(text, MAX_BLOCKS)) add(block.content, ['fenced-block'])
  add(text, [])

  const start = nextCandidateStart(text, 0)
  if (start >= 0) {
    const end = scanBalanced(text, start)
    add(end < 0 ? text.slice(start) : text.slice(start, end), start === 0 ? [] : ['extracted-from-prose'])
  }
  return out
}

// A tag block may hold a sentence around its JSON: keep the first object or array, to its balanced
// end (or to the end of a cut block).
function jsonStart(content: string): string {
  const at = content.search(/[{[]/)
  if (at < 0) return ''
  const end = scanBalanced(content, at)
  return (end < 0 ? content.slice(at) : content.slice(at, end)).trim()
}
