import type { JsonLimits } from '../json/json-limits.ts'
import { MAX_JSON_VALUES } from '../json/json-segments.ts'
import { parseJsonSafe } from '../json/parse-json-safe.ts'
import type { CompiledSchema, SchemaResult } from '../schema/compiled-schema.ts'
import type { RepairKind } from './detect-repairs.ts'
import { findRepairCandidates } from './repair-candidates.ts'
import { repairJson } from './repair-json.ts'

/** The verdict of {@link repairFinalAnswer}: a schema-valid value and what was repaired, or nothing. */
export type RepairOutcome<T> =
  | { readonly ok: true; readonly value: T; readonly repairs: readonly RepairKind[] }
  /** `reason`: why a value could not be repaired without a guess (a bare name, an ambiguous quote), for the feedback. */
  | { readonly ok: false; readonly reason?: string }

/** Options of {@link repairFinalAnswer}. */
export interface RepairOptions extends JsonLimits {
  /** Longest answer the repair stage works on, in characters. @default 100_000 */
  readonly maxRepairLength?: number | undefined
  /** @deprecated Ignored: the answer's values are repaired together, so there is no other candidate to skip to. */
  readonly skip?: string | undefined
}

/** Default for {@link RepairOptions.maxRepairLength}: repairs are for model answers, not documents. */
export const DEFAULT_MAX_REPAIR_LENGTH = 100_000
const NOT_REPAIRED = { ok: false } as const

/**
 * The deterministic repair stage, all or nothing: every JSON-looking value of the answer (each
 * `<tool_call>` block, fenced block or object in prose: see `findJsonSegments`) is repaired with
 * `jsonrepair`; one value is the answer, several are a list in order. If any value cannot be
 * repaired, or the result fails the schema, nothing is accepted and the caller's original parse or
 * schema error stands (it names the broken values): no value is ever picked out of several, so no
 * call the model wrote is dropped. A value that may have been cut is never completed, whatever the
 * stop reason: brackets are closed only where the model went on writing after them (a closing tag or
 * fence follows), never at the end of the answer, and an unterminated string is never closed (see
 * `repairJson`); an answer cut by the provider's token limit never reaches this stage. Bounded: a few linear passes over at most
 * `maxRepairLength` characters.
 *
 * @example
 * repairFinalAnswer("<tool_call>{'name': 'f', 'arguments': {}}</tool_call>", schema)
 * // { ok: true, value: { name: 'f', arguments: {} }, repairs: ['tool-call-tags', 'single-quotes'] }
 */
export function repairFinalAnswer<T>(text: string, schema: CompiledSchema<T>, options: RepairOptions = {}): RepairOutcome<T> | Promise<RepairOutcome<T>> {
  if (text.length > (options.maxRepairLength ?? DEFAULT_MAX_REPAIR_LENGTH)) return NOT_REPAIRED
  const candidates = findRepairCandidates(text)
  if (candidates.length === 0 || candidates.length > MAX_JSON_VALUES) return NOT_REPAIRED
  const values: unknown[] = []
  const labels = new Set<RepairKind>()
  for (const candidate of candidates) {
    const strict = parseJsonSafe(candidate.text, options)
    // A refused key is a security verdict, not a syntax slip: never repaired around.
    if (!strict.ok && strict.reason !== 'syntax') return NOT_REPAIRED
    for (const kind of candidate.via) labels.add(kind)
    if (strict.ok) {
      values.push(strict.value)
      continue
    }
    const fixed = repairJson(candidate.text, options, { blockEnded: candidate.blockEnded })
    if (!fixed.ok) return fixed.guess === true ? { ok: false, reason: fixed.message } : NOT_REPAIRED
    values.push(fixed.value)
    for (const kind of fixed.repairs) labels.add(kind)
  }
  if (candidates.length > 1) labels.add('joined-blocks')
  const repairs: readonly RepairKind[] = labels.size > 0 ? [...labels] : ['other-syntax']
  const verdict = schema.validate(candidates.length === 1 ? values[0] : values)
  return verdict instanceof Promise ? verdict.then((settled) => accept(settled, repairs)) : accept(verdict, repairs)
}

function accept<T>(verdict: SchemaResult<T>, repairs: readonly RepairKind[]): RepairOutcome<T> {
  return verdict.ok ? { ok: true, value: verdict.value, repairs } : NOT_REPAIRED
}
