import type { JsonLimits } from '../json/json-limits.ts'
import type { CompiledSchema, SchemaResult } from '../schema/compiled-schema.ts'
import type { RepairKind } from './detect-repairs.ts'
import { findRepairCandidates, type RepairCandidate } from './repair-candidates.ts'
import { repairJson } from './repair-json.ts'

/** The verdict of {@link repairFinalAnswer}: a schema-valid value and what was repaired, or nothing. */
export type RepairOutcome<T> = { readonly ok: true; readonly value: T; readonly repairs: readonly RepairKind[] } | { readonly ok: false }

/** Options of {@link repairFinalAnswer}. */
export interface RepairOptions extends JsonLimits {
  /** A candidate already parsed and rejected by the schema; not tried again. */
  readonly skip?: string | undefined
  /** Longest answer the repair stage works on, in characters. @default 100_000 */
  readonly maxRepairLength?: number | undefined
}

/** Default for {@link RepairOptions.maxRepairLength}: repairs are for model answers, not documents. */
export const DEFAULT_MAX_REPAIR_LENGTH = 100_000
const NOT_REPAIRED = { ok: false } as const

/**
 * The deterministic repair stage: each candidate slice of the answer (tool-call tags, fenced blocks,
 * the whole text, the first object in prose) is repaired with `jsonrepair`, and the first whose
 * value passes the schema wins. A repair the schema rejects is never accepted, so the caller's
 * original parse or schema error stands. Bounded: at most a few linear passes over at most
 * `maxRepairLength` characters.
 *
 * @example
 * repairFinalAnswer("<tool_call>{'name': 'f', 'arguments': {}}</tool_call>", schema)
 * // { ok: true, value: { name: 'f', arguments: {} }, repairs: ['tool-call-tags', 'single-quotes'] }
 */
export function repairFinalAnswer<T>(
  text: string,
  schema: CompiledSchema<T>,
  options: RepairOptions = {},
): RepairOutcome<T> | Promise<RepairOutcome<T>> {
  if (text.length > (options.maxRepairLength ?? DEFAULT_MAX_REPAIR_LENGTH)) return NOT_REPAIRED
  const skip = options.skip?.trim()
  const candidates = findRepairCandidates(text).filter((c) => c.text !== skip)
  return tryFrom(0, candidates, schema, options)
}

function tryFrom<T>(
  from: number,
  candidates: readonly RepairCandidate[],
  schema: CompiledSchema<T>,
  limits: JsonLimits,
): RepairOutcome<T> | Promise<RepairOutcome<T>> {
  for (let i = from; i < candidates.length; i++) {
    const candidate = candidates[i] as RepairCandidate
    const repaired = repairJson(candidate.text, limits)
    if (!repaired.ok) continue
    const repairs = labels(candidate.via, repaired.repairs)
    const verdict = schema.validate(repaired.value)
    if (verdict instanceof Promise) {
      return verdict.then((settled) => accept(settled, repairs) ?? tryFrom(i + 1, candidates, schema, limits))
    }
    const accepted = accept(verdict, repairs)
    if (accepted !== undefined) return accepted
  }
  return NOT_REPAIRED
}

function accept<T>(verdict: SchemaResult<T>, repairs: readonly RepairKind[]): RepairOutcome<T> | undefined {
  return verdict.ok ? { ok: true, value: verdict.value, repairs } : undefined
}

function labels(via: readonly RepairKind[], fixed: readonly RepairKind[]): readonly RepairKind[] {
  const all = [...new Set([...via, ...fixed])]
  return all.length > 0 ? all : ['other-candidate']
}
