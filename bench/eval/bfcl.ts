import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { compileSchema, extractJson, type IssueCode } from '../../src/validation/building-blocks.ts'
import { validateFinalAnswer } from '../../src/validation/index.ts'
import { CORPORA, untar } from '../support/corpora.ts'
import { measureBfclCorrectness, type BfclCorrectness } from './bfcl-correctness.ts'
import { bfclToJsonSchema } from './bfcl-schema.ts'

export interface ExtractionResult {
  readonly outputs: number
  /** Parsed at all (every JSON value of the answer, or none). */
  readonly extracted: number
  readonly bySource: Readonly<Record<string, number>>
  /** With the repair stage (`validateFinalAnswer(..., {repair: true})` against the empty schema). */
  readonly extractedWithRepair: number
  /** False when `repair: true` does not repair a known-repairable text yet. */
  readonly repairAvailable: boolean
  readonly unparseableToolArgs: { readonly total: number; readonly extracted: number; readonly extractedWithRepair: number }
  /** The scored outputs judged against BFCL's possible_answer: what counts, beyond "it parsed". */
  readonly correctness: BfclCorrectness
}

const ANY = compileSchema({})

function acceptsWithRepair(text: string): boolean {
  const verdict = validateFinalAnswer(text, ANY, { repair: true })
  if (verdict instanceof Promise) throw new Error('the empty schema answered with a promise')
  return verdict.ok
}

/**
 * BFCL text outputs (16,254 real model answers with JSON in them) through extraction, and repair:
 * how many parse, and (on the 9,881 with a possible answer) how many are correct against it, with
 * the false repairs (an invented value, or a dropped call).
 */
export function runBfclExtraction(): ExtractionResult {
  const derived = path.join(CORPORA, 'bfcl/derived')
  const outputs = gunzipSync(readFileSync(path.join(derived, 'text_outputs_with_json.jsonl.gz')))
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { raw: string }).raw)
  const bySource: Record<string, number> = {}
  let extracted = 0
  let extractedWithRepair = 0
  for (const raw of outputs) {
    const result = extractJson(raw)
    if (result.ok) {
      extracted++
      bySource[result.source] = (bySource[result.source] ?? 0) + 1
    }
    if (result.ok || acceptsWithRepair(raw)) extractedWithRepair++
  }
  const args = readFileSync(path.join(derived, 'fc_tool_args_unparseable.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { arguments_raw: string }).arguments_raw)
  return {
    outputs: outputs.length,
    extracted,
    bySource,
    extractedWithRepair,
    repairAvailable: acceptsWithRepair("{'orderId': 'A-42', amount: 50,}"),
    unparseableToolArgs: {
      total: args.length,
      extracted: args.filter((a) => extractJson(a).ok).length,
      extractedWithRepair: args.filter((a) => extractJson(a).ok || acceptsWithRepair(a)).length,
    },
    correctness: measureBfclCorrectness(),
  }
}

interface ScoreRecord {
  readonly test_category: string
  readonly error?: readonly string[]
  readonly error_type?: string
  readonly prompt?: { readonly function?: unknown }
  readonly model_result_decoded?: unknown
}

/** BFCL verdicts we compare with, and the issue code that means the same. */
const VERDICTS: readonly { readonly match: (t: string) => boolean; readonly label: string; readonly code: IssueCode | 'accept' }[] = [
  { match: (t) => t === 'type_error:simple', label: 'type_error:simple', code: 'invalid_type' },
  { match: (t) => t === 'type_error:nested', label: 'type_error:nested', code: 'invalid_type' },
  { match: (t) => t === 'simple_function_checker:missing_required', label: 'missing_required', code: 'missing_required' },
  { match: (t) => t === 'simple_function_checker:unexpected_param', label: 'unexpected_param', code: 'unknown_property' },
  { match: (t) => t.startsWith('value_error:'), label: 'value_error:* (types right, control)', code: 'accept' },
]

export interface AgreementRow {
  readonly verdict: string
  readonly records: number
  /** We reject, with an issue of the same kind on the parameter BFCL names (control: we accept). */
  readonly agree: number
  /** We reject at all (control: we reject). */
  readonly rejectAny: number
  /** Disagreements where BFCL wanted a float and got an integer, which JSON Schema's `number` accepts. */
  readonly intForFloat: number
}

export interface AgreementResult {
  readonly models: number
  readonly category: string
  readonly rows: readonly AgreementRow[]
  readonly examples: readonly { readonly verdict: string; readonly bfcl: string; readonly ours: string }[]
}

/**
 * Agreement of our tool-argument validation (BFCL types mapped to JSON Schema, compiled, then
 * `validate(args)`) with BFCL's own checker verdicts on the `simple` (Python) category of the
 * 2024-08-11 score records, across every model. Java and JavaScript categories are left out: their
 * arguments are source-code strings checked against Java/JS types.
 */
export function runBfclAgreement(): AgreementResult {
  const root = path.join(untar('bfcl/results-2024-08-11/score.tar.gz'), 'score')
  const models = readdirSync(root).sort()
  const counts = new Map(VERDICTS.map((v) => [v.label, { records: 0, agree: 0, rejectAny: 0, intForFloat: 0 }]))
  const examples: { verdict: string; bfcl: string; ours: string }[] = []
  for (const model of models) {
    let text: string
    try {
      text = readFileSync(path.join(root, model, 'simple_score.json'), 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      if (line.trim() === '') continue
      const record = JSON.parse(line) as ScoreRecord
      const verdict = VERDICTS.find((v) => v.match(record.error_type ?? ''))
      const calls = record.model_result_decoded
      if (verdict === undefined || !Array.isArray(calls) || calls.length !== 1) continue
      const fn = Array.isArray(record.prompt?.function) ? record.prompt.function[0] : record.prompt?.function
      const call = calls[0] as Record<string, unknown>
      const args = Object.values(call)[0]
      if (typeof fn !== 'object' || fn === null) continue
      const schema = compileSchema(bfclToJsonSchema((fn as { parameters?: unknown }).parameters))
      const result = schema.validate(args)
      if (result instanceof Promise) throw new Error('the raw-JSON-Schema path answered with a promise')
      const count = counts.get(verdict.label) as { records: number; agree: number; rejectAny: number; intForFloat: number }
      count.records++
      const issues = result.ok ? [] : result.issues
      if (issues.length > 0) count.rejectAny++
      const param = /'([^']+)'/.exec(record.error?.[0] ?? '')?.[1]
      const agree = verdict.code === 'accept' ? issues.length === 0 : issues.some((i) => i.code === verdict.code && i.segments[0] === param)
      if (agree) count.agree++
      else if (issues.length === 0 && /float/.test(record.error?.[0] ?? '')) count.intForFloat++
      if (!agree && examples.filter((e) => e.verdict === verdict.label).length < 3) {
        examples.push({
          verdict: verdict.label,
          bfcl: (record.error?.[0] ?? '').slice(0, 160),
          ours:
            issues.length === 0
              ? 'accepted'
              : issues
                  .map((i) => `${i.code} at '${i.path}'`)
                  .join('; ')
                  .slice(0, 160),
        })
      }
    }
  }
  return {
    models: models.length,
    category: 'simple',
    rows: VERDICTS.map((v) => ({ verdict: v.label, ...(counts.get(v.label) as { records: number; agree: number; rejectAny: number; intForFloat: number }) })),
    examples,
  }
}
