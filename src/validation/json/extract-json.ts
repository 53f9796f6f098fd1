import type { ValidationIssue } from '../issue.ts'
import { answerValues, severalValuesMessage } from './answer-values.ts'
import { findJsonSegments, MAX_JSON_VALUES, type JsonSegment } from './json-segments.ts'
import { DEFAULT_MAX_LENGTH, type JsonLimits } from './json-limits.ts'
import { parseJsonSafe, type JsonParseResult } from './parse-json-safe.ts'
import { holdsReasoning } from './reasoning-blocks.ts'

/**
 * Where the JSON value was found in a model's answer: the whole text, one fenced block, one value
 * inside prose, or several values (parallel calls: tool-call blocks, values one per line, per turn or
 * per fence) joined into a list.
 */
export type JsonSource = 'direct' | 'fenced' | 'embedded' | 'joined'

/** The verdict of {@link extractJson}. */
export type ExtractJsonResult =
  | {
      readonly ok: true
      readonly value: unknown
      readonly source: JsonSource
      /** The text the value was parsed from (for `joined`, the values' texts, one per line). */
      readonly candidate: string
      /** How many values the answer held: more than 1 only for `joined`. */
      readonly count: number
    }
  | {
      readonly ok: false
      readonly message: string
      /** Offset in the original text. */
      readonly position?: number
      /** For a forbidden key: the issue to show the model. */
      readonly issue?: ValidationIssue
    }

type Failure = Extract<JsonParseResult, { ok: false }>
type Refusal = Extract<ExtractJsonResult, { ok: false }>

// Broken values named one by one in a failure message, then "and N more".
const MAX_NAMED = 3
const REFUSAL_IN_CODE = 'the answer is a refusal whose only JSON-looking values sit inside code (a code sample, a function argument): none of them is an answer'
const ONLY_REASONING = 'no JSON object or array found after the reasoning (<think>…</think>): the answer must follow the reasoning block, outside it'

/**
 * Finds the JSON in a model's answer: the whole (trimmed) text when it parses; otherwise the
 * JSON-looking values in it (in fences, in tool-call tags, in prose: see `findJsonSegments`).
 * Values inside reasoning blocks (`<think>`) are skipped. One value is the answer; parallel calls
 * (tool-call blocks, values one per line, per `<|im_start|>` turn or per fence, values each marked as a
 * call: see `answerValues`) are all taken, as a list in order; other values with prose between them
 * (a retracted value and its correction, an example after a tagged call) fail with feedback naming
 * what was found, and a refusal whose only values sit in code has none. If any value taken does not
 * parse the answer fails, naming each broken value. Never one value picked out of several. Never throws.
 *
 * @example
 * extractJson('Sure!\n```json\n{"a": 1}\n```') // { ok: true, value: { a: 1 }, source: 'fenced', ... }
 * extractJson('<tool_call>{"n": 1}</tool_call><tool_call>{"n": 2}</tool_call>') // value [{ n: 1 }, { n: 2 }], source 'joined'
 * extractJson('{"n": 1}\n{"n": 2}') // value [{ n: 1 }, { n: 2 }], source 'joined'
 * extractJson('{"amount": 5}. Actually: {"amount": 6}') // { ok: false, message: 'the answer holds 2 separate JSON values with prose between them, ...' }
 */
export function extractJson(text: string, options?: JsonLimits): ExtractJsonResult {
  const trimmed = text.trim()
  if (trimmed === '') return { ok: false, message: 'the response is empty' }
  const maxLength = options?.maxLength ?? DEFAULT_MAX_LENGTH
  if (text.length > maxLength) return { ok: false, message: `the response is too long (${text.length} characters, limit ${maxLength})` }

  const leading = text.length - text.trimStart().length
  const direct = parseJsonSafe(trimmed, options)
  if (direct.ok) return { ok: true, value: direct.value, source: 'direct', candidate: trimmed, count: 1 }
  if (direct.reason !== 'syntax') return failure(direct, leading)

  const found = findJsonSegments(text)
  if (found.length > MAX_JSON_VALUES) return { ok: false, message: `the response holds more than ${MAX_JSON_VALUES} separate JSON values` }
  const answer = answerValues(found, text)
  if ('several' in answer) return { ok: false, message: severalValuesMessage(answer) }
  const segments = answer.values
  if (segments.length === 0) {
    // Prose fails the direct parse too; only a text that looks like JSON makes its error the one to report.
    if (/^[{["]/.test(trimmed)) return failure(direct, leading)
    if (found.length > 0) return { ok: false, message: REFUSAL_IN_CODE }
    if (holdsReasoning(text)) return { ok: false, message: ONLY_REASONING }
    return { ok: false, message: 'no JSON object or array found in the response' }
  }
  const values: unknown[] = []
  const broken: { segment: JsonSegment; index: number; error: Failure }[] = []
  for (const [index, segment] of segments.entries()) {
    const parsed = parseJsonSafe(segment.text, options)
    if (parsed.ok) values.push(parsed.value)
    else if (parsed.reason !== 'syntax') return failure(parsed, segment.start)
    else broken.push({ segment, index, error: parsed })
  }
  if (broken.length > 0) return brokenValues(broken, segments.length)
  const only = segments[0] as JsonSegment
  if (segments.length === 1) return { ok: true, value: values[0], source: only.fenced ? 'fenced' : 'embedded', candidate: only.text, count: 1 }
  return { ok: true, value: values, source: 'joined', candidate: segments.map((s) => s.text).join('\n'), count: segments.length }
}

function brokenValues(broken: readonly { segment: JsonSegment; index: number; error: Failure }[], total: number): Refusal {
  const first = broken[0] as (typeof broken)[number]
  if (total === 1) return failure(first.error, first.segment.start)
  const named = broken.slice(0, MAX_NAMED).map(({ segment, index, error }) => `value ${index + 1} (at character ${segment.start}): ${detail(error)}`)
  const more = broken.length - named.length
  const message = `${broken.length} of the ${total} JSON values in the response are not valid JSON: ${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}`
  const position = first.error.position === undefined ? undefined : first.error.position + first.segment.start
  return position === undefined ? { ok: false, message } : { ok: false, message, position }
}

function detail(error: Failure): string {
  return error.message.replace(/^not valid JSON:\s*/, '')
}

function failure(parsed: Failure, offset: number): Refusal {
  const result: { ok: false; message: string; position?: number; issue?: ValidationIssue } = { ok: false, message: parsed.message }
  if (parsed.position !== undefined) result.position = parsed.position + offset
  if (parsed.issue !== undefined) result.issue = parsed.issue
  return result
}
