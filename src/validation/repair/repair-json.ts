import { jsonrepair } from 'jsonrepair'
import type { JsonLimits } from '../json/json-limits.ts'
import { parseJsonSafe } from '../json/parse-json-safe.ts'
import { detectRepairs, type RepairKind } from './detect-repairs.ts'

/** The verdict of {@link repairJson}. */
export type RepairJsonResult =
  | { readonly ok: true; readonly value: unknown; readonly repairs: readonly RepairKind[] }
  | { readonly ok: false; readonly message: string }

/**
 * Repairs one JSON-like candidate with `jsonrepair` (comments, trailing commas, single quotes,
 * Python `None/True/False`, unquoted keys, unclosed brackets at the end of a value) and parses the
 * result with the same safety checks as any model output. Only an object or an array is accepted: a
 * repairer turns any prose into a JSON string, which would be a false repair. A value that elides
 * content with an ellipsis (`[1, 2, ...]`, `{"entries": [...`) is refused: `jsonrepair` would drop
 * the ellipsis and return a value the model never gave.
 *
 * @example
 * repairJson("{'ok': True,}") // { ok: true, value: { ok: true }, repairs: ['single-quotes', 'trailing-comma', 'python-literals'] }
 */
export function repairJson(candidate: string, limits?: JsonLimits): RepairJsonResult {
  const trimmed = candidate.trim()
  if (!/^[{[]/.test(trimmed)) return { ok: false, message: 'not a JSON object or array' }
  // `[1, 2, ...]` means the model left values out: dropping the ellipsis would invent a shorter value.
  if (elidesContent(trimmed)) return { ok: false, message: 'the value elides content with an ellipsis (...), which cannot be recovered' }
  let repaired: string
  try {
    repaired = jsonrepair(trimmed)
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
  const parsed = parseJsonSafe(repaired, limits)
  if (!parsed.ok) return { ok: false, message: parsed.message }
  if (typeof parsed.value !== 'object' || parsed.value === null) return { ok: false, message: 'the repair did not yield an object or array' }
  if (repaired === trimmed) return { ok: true, value: parsed.value, repairs: [] }
  const repairs = detectRepairs(trimmed)
  return { ok: true, value: parsed.value, repairs: repairs.length > 0 ? repairs : ['other-syntax'] }
}

const BACKSLASH = 92

/** Whether `...` or `…` appears outside strings (double- or single-quoted): the model wrote an ellipsis in place of values. */
function elidesContent(text: string): boolean {
  let quote = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (quote !== 0) {
      if (code === BACKSLASH) i++
      else if (code === quote) quote = 0
      continue
    }
    if (code === 34 || code === 39) quote = code
    else if (code === 0x2026 || (code === 46 && text.startsWith('...', i))) return true
  }
  return false
}
