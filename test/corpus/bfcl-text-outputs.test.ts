import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { expect, it } from 'vitest'
import { compileSchema, validateFinalAnswer } from '../../src/validation/index.ts'
import { corpora, corpusPath, describeWith } from '../support/requirements.ts'
import { callSchema, faithfulTo, matchesGroundTruth, type BfclFunction, type Call } from './bfcl-oracle.ts'

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

function readJsonl<T>(text: string): T[] {
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as T)
}

interface Corpus {
  readonly outputs: readonly TextOutput[]
  readonly answers: ReadonlyMap<string, Record<string, Record<string, unknown[]>>>
}

function readCorpus(): Corpus {
  const outputs = readJsonl<TextOutput>(gunzipSync(readFileSync(corpusPath('bfcl/derived/text_outputs_with_json.jsonl.gz'))).toString('utf8'))
  const answers = new Map<string, Record<string, Record<string, unknown[]>>>()
  for (const category of SCORED) {
    const file = corpusPath(`bfcl/dataset-v1-2024-08/possible_answer/gorilla_openfunctions_v1_test_${category}.json`)
    for (const row of readJsonl<{ id: string; ground_truth: Record<string, Record<string, unknown[]>> }>(readFileSync(file, 'utf8'))) answers.set(row.id, row.ground_truth)
  }
  return { outputs, answers }
}

interface Figures {
  scored: number
  strictCorrect: number
  repairCorrect: number
  repairedAccepted: number
  repairedCorrect: number
  /** Repaired faithfully (same names and values as the raw text) but the model's call itself was wrong. */
  repairedWrong: number
  falseRepairs: number
}

function measure({ outputs, answers }: Corpus): Figures {
  const f: Figures = { scored: 0, strictCorrect: 0, repairCorrect: 0, repairedAccepted: 0, repairedCorrect: 0, repairedWrong: 0, falseRepairs: 0 }
  for (const out of outputs) {
    const truth = answers.get(out.id)
    if (truth === undefined) continue
    f.scored++
    const schema = compileSchema(callSchema(out.functions))
    const strict = validateFinalAnswer(out.raw, schema)
    const repaired = validateFinalAnswer(out.raw, schema, { repair: true })
    if (strict instanceof Promise || repaired instanceof Promise) throw new Error('the call schema is synchronous')
    const strictOk = strict.ok && matchesGroundTruth(strict.value as Call[], truth, out.functions)
    if (strictOk) f.strictCorrect++
    if (!repaired.ok) continue
    const correct = matchesGroundTruth(repaired.value as Call[], truth, out.functions)
    if (correct) f.repairCorrect++
    if (repaired.repairs === undefined || repaired.repairs.length === 0) continue
    f.repairedAccepted++
    if (correct) f.repairedCorrect++
    // A false repair: the oracle rejects the value and the raw text never held it (a name or value was invented).
    else if (faithfulTo(out.raw, repaired.value as Call[])) f.repairedWrong++
    else {
      f.falseRepairs++
      if (process.env.SHOW_FALSE_REPAIRS) console.log(JSON.stringify(out.raw).slice(0, 400), JSON.stringify(repaired.value))
    }
  }
  return f
}

describeWith(corpora)('BFCL text outputs (16,254 real model answers)', () => {
  const corpus = readCorpus()
  const { outputs } = corpus
  const figures = measure(corpus)
  const share = (n: number) => `${((100 * n) / figures.scored).toFixed(1)}%`
  console.log(
    `[bfcl text outputs] ${outputs.length} outputs, ${figures.scored} with a possible_answer; ` +
      `correct without repair ${figures.strictCorrect} (${share(figures.strictCorrect)}), with repair ${figures.repairCorrect} (${share(figures.repairCorrect)}); ` +
      `repaired and accepted ${figures.repairedAccepted}, of which oracle-correct ${figures.repairedCorrect}, faithful to a wrong call ${figures.repairedWrong}; false repairs ${figures.falseRepairs}`,
  )

  it('reads every output of the corpus', () => {
    expect(outputs).toHaveLength(16_254)
    expect(figures.scored).toBe(SCORED_COUNT)
  })

  it('extracts at least the pinned share of answers that pass the function schema and match possible_answer', () => {
    expect(figures.repairCorrect).toBeGreaterThanOrEqual(PINNED.repairCorrect)
    expect(figures.strictCorrect).toBeGreaterThanOrEqual(PINNED.strictCorrect)
  })

  it('gains correct answers through the repair stage', () => {
    expect(figures.repairCorrect - figures.strictCorrect).toBeGreaterThanOrEqual(PINNED.repairCorrect - PINNED.strictCorrect)
    expect(figures.repairedCorrect).toBeGreaterThanOrEqual(PINNED.repairedCorrect)
  })

  it('makes no more false repairs than pinned', () => {
    expect(figures.falseRepairs).toBeLessThanOrEqual(PINNED.falseRepairs)
  })
})

// Measured figures: a regression in extraction or repair fails these (improvements raise them).
const SCORED_COUNT = 9881
const PINNED = { strictCorrect: 5519, repairCorrect: 6318, repairedCorrect: 799, falseRepairs: 0 }
