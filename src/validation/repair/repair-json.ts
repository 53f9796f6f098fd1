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
 * Python `None/True/False`, unquoted keys, unclosed brackets of a cut answer) and parses the result
 * with the same safety checks as any model output. Only an object or an array is accepted: a
 * repairer turns any prose into a JSON string, which would be a false repair.
 *
 * @example
 * repairJson("{'ok': True,}") // { ok: true, value: { ok: true }, repairs: ['single-quotes', 'trailing-comma', 'python-literals'] }
 */
export function repairJson(candidate: string, limits?: JsonLimits): RepairJsonResult {
  const trimmed = candidate.trim()
  if (!/^[{[]/.test(trimmed)) return { ok: false, message: 'not a JSON object or array' }
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
