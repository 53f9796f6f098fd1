import type { ValidationIssue } from '../issue.ts'
import { scanBalanced, nextCandidateStart } from './balanced-scan.ts'
import { findFencedBlocks } from './fenced-blocks.ts'
import { DEFAULT_MAX_LENGTH, type JsonLimits } from './json-limits.ts'
import { parseJsonSafe, type JsonParseResult } from './parse-json-safe.ts'

/** Where the JSON value was found in a model's answer. */
export type JsonSource = 'direct' | 'fenced' | 'embedded'

/** The verdict of {@link extractJson}. */
export type ExtractJsonResult =
  | { readonly ok: true; readonly value: unknown; readonly source: JsonSource; readonly candidate: string }
  | {
      readonly ok: false
      readonly message: string
      /** Offset in the original text. */
      readonly position?: number
      /** For a forbidden key: the issue to show the model. */
      readonly issue?: ValidationIssue
    }

// Bounds the work on pathological input: each attempt is one linear scan and parse.
const MAX_FENCES = 8
const MAX_EMBEDDED_ATTEMPTS = 8

type Failure = Extract<JsonParseResult, { ok: false }>

/**
 * Finds the JSON value in a model's answer: the whole (trimmed) text, else the first fenced block
 * that parses, else the first balanced object or array inside prose. Never throws.
 *
 * @example
 * extractJson('Sure!\n```json\n{"a": 1}\n```') // { ok: true, value: { a: 1 }, source: 'fenced', ... }
 */
export function extractJson(text: string, options?: JsonLimits): ExtractJsonResult {
  const trimmed = text.trim()
  if (trimmed === '') return { ok: false, message: 'the response is empty' }
  const maxLength = options?.maxLength ?? DEFAULT_MAX_LENGTH
  if (text.length > maxLength) return { ok: false, message: `the response is too long (${text.length} characters, limit ${maxLength})` }

  let firstError: ExtractJsonResult | undefined
  const leading = text.length - text.trimStart().length
  const direct = parseJsonSafe(trimmed, options)
  if (direct.ok) return { ok: true, value: direct.value, source: 'direct', candidate: trimmed }
  // Prose fails here too; only a text that looks like JSON makes its error the one to report.
  if (direct.reason !== 'syntax' || /^[{["]/.test(trimmed)) {
    if (direct.reason !== 'syntax') return failure(direct, leading)
    firstError = failure(direct, leading)
  }

  for (const block of findFencedBlocks(text, MAX_FENCES)) {
    const candidate = block.content.trim()
    if (candidate === '') continue
    const parsed = parseJsonSafe(candidate, options)
    if (parsed.ok) return { ok: true, value: parsed.value, source: 'fenced', candidate }
    const offset = block.start + (block.content.length - block.content.trimStart().length)
    if (parsed.reason !== 'syntax') return failure(parsed, offset)
    firstError ??= failure(parsed, offset)
  }

  let from = 0
  for (let attempt = 0; attempt < MAX_EMBEDDED_ATTEMPTS; attempt++) {
    const start = nextCandidateStart(text, from)
    if (start < 0) break
    const end = scanBalanced(text, start)
    if (end < 0) {
      from = start + 1
      continue
    }
    const candidate = text.slice(start, end)
    const parsed = parseJsonSafe(candidate, options)
    if (parsed.ok) return { ok: true, value: parsed.value, source: 'embedded', candidate }
    if (parsed.reason !== 'syntax') return failure(parsed, start)
    firstError ??= failure(parsed, start)
    from = end
  }
  return firstError ?? { ok: false, message: 'no JSON object or array found in the response' }
}

function failure(parsed: Failure, offset: number): ExtractJsonResult {
  const result: { ok: false; message: string; position?: number; issue?: ValidationIssue } = { ok: false, message: parsed.message }
  if (parsed.position !== undefined) result.position = parsed.position + offset
  if (parsed.issue !== undefined) result.issue = parsed.issue
  return result
}
