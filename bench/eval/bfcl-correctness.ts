import { readFileSync } from 'node:fs'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { compileSchema, validateFinalAnswer } from '../../src/validation/index.ts'
import { CORPORA } from '../support/corpora.ts'
import { callSchema, callsWritten, faithfulTo, matchesGroundTruth, type BfclFunction, type Call } from './bfcl-oracle.ts'

// The four Python AST categories carry a possible_answer; executable, REST and relevance ones do not,
// and Java/JavaScript answers hold language-typed strings that BFCL checks with its own parsers.
const SCORED = ['simple', 'multiple_function', 'parallel_function', 'parallel_multiple_function'] as const

interface TextOutput {
  readonly model: string
  readonly category: string
  readonly id: string
  readonly raw: string
  readonly functions: readonly BfclFunction[]
}

/** Extraction judged against BFCL's `possible_answer`, not merely "it parsed". */
export interface BfclCorrectness {
  readonly outputs: number
  /** Outputs of the four scored categories (those with a possible_answer). */
  readonly scored: number
  /** Accepted without repair and matching the possible answer. */
  readonly strictCorrect: number
  /** Accepted with the repair stage on and matching the possible answer. */
  readonly repairCorrect: number
  /** Accepted only thanks to a repair. */
  readonly repairedAccepted: number
  readonly repairedCorrect: number
  /** Repaired faithfully (the names and values are the model's) but the model's call itself was wrong. */
  readonly repairedWrong: number
  /**
   * Repairs that changed what the model said: a value or name it never wrote, or fewer calls than
   * the raw text holds (read independently: `callsWritten`). Dropped calls are in here too.
   */
  readonly falseRepairs: number
  /** Accepted answers (with or without repair) holding fewer calls than the raw text. */
  readonly droppedCalls: number
  readonly examples: readonly { readonly kind: 'invented' | 'dropped'; readonly raw: string; readonly accepted: string }[]
}

function readJsonl<T>(text: string): T[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T)
}

/** Loads the BFCL text outputs (16,254 real answers with JSON in them) and the possible answers. */
export function bfclTextOutputs(): {
  readonly outputs: readonly TextOutput[]
  readonly answers: ReadonlyMap<string, Record<string, Record<string, unknown[]>>>
} {
  const outputs = readJsonl<TextOutput>(gunzipSync(readFileSync(path.join(CORPORA, 'bfcl/derived/text_outputs_with_json.jsonl.gz'))).toString('utf8'))
  const answers = new Map<string, Record<string, Record<string, unknown[]>>>()
  for (const category of SCORED) {
    const file = path.join(CORPORA, `bfcl/dataset-v1-2024-08/possible_answer/gorilla_openfunctions_v1_test_${category}.json`)
    for (const row of readJsonl<{ id: string; ground_truth: Record<string, Record<string, unknown[]>> }>(readFileSync(file, 'utf8')))
      answers.set(row.id, row.ground_truth)
  }
  return { outputs, answers }
}

/**
 * Every scored output through `validateFinalAnswer` against its question's call schema, without
 * and with the repair stage; each accepted value is checked against BFCL's possible answer, and
 * each repaired one against the raw text (a value or name the model never wrote, or a call dropped,
 * is a false repair).
 */
export function measureBfclCorrectness(): BfclCorrectness {
  const { outputs, answers } = bfclTextOutputs()
  const f = {
    outputs: outputs.length,
    scored: 0,
    strictCorrect: 0,
    repairCorrect: 0,
    repairedAccepted: 0,
    repairedCorrect: 0,
    repairedWrong: 0,
    falseRepairs: 0,
    droppedCalls: 0,
  }
  const examples: { kind: 'invented' | 'dropped'; raw: string; accepted: string }[] = []
  for (const out of outputs) {
    const truth = answers.get(out.id)
    if (truth === undefined) continue
    f.scored++
    const schema = compileSchema(callSchema(out.functions))
    const strict = validateFinalAnswer(out.raw, schema)
    const repaired = validateFinalAnswer(out.raw, schema, { repair: true })
    if (strict instanceof Promise || repaired instanceof Promise) throw new Error('the call schema is synchronous')
    if (strict.ok && matchesGroundTruth(strict.value as Call[], truth, out.functions)) f.strictCorrect++
    if (!repaired.ok) continue
    const calls = repaired.value as Call[]
    const correct = matchesGroundTruth(calls, truth, out.functions)
    if (correct) f.repairCorrect++
    const dropped = calls.length < callsWritten(out.raw, out.functions)
    if (dropped) f.droppedCalls++
    if (repaired.repairs === undefined || repaired.repairs.length === 0) continue
    f.repairedAccepted++
    if (correct) f.repairedCorrect++
    else if (faithfulTo(out.raw, calls) && !dropped) f.repairedWrong++
    if (!dropped && (correct || faithfulTo(out.raw, calls))) continue
    f.falseRepairs++
    if (examples.length < 5)
      examples.push({ kind: dropped ? 'dropped' : 'invented', raw: out.raw.slice(0, 300), accepted: JSON.stringify(calls).slice(0, 300) })
  }
  return { ...f, examples }
}
