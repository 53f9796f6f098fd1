import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { compileSchema, validateFinalAnswer } from '../../src/validation/index.ts'
import { bfclTextOutputs } from './bfcl-correctness.ts'
import { JUSTIFIED_CHANGES } from './bfcl-justified-changes.ts'
import { type Call, callSchema, callsWritten, faithfulTo, matchesGroundTruth, normName } from './bfcl-oracle.ts'

/**
 * The answers the previous release accepted (`validateFinalAnswer(raw, callSchema, { repair: true })`
 * at the commit named in the file) with a value faithful to the text (every name and value written in
 * it, no call dropped): each answer's key and a hash of its calls. Made by `bench/eval/bfcl-baseline.ts`
 * against that release's sources; the corpus itself is never copied here, only ids and hashes.
 */
export interface Baseline {
  readonly release: string
  /** Model → question id → the hash of the calls, with `+` when they matched BFCL's possible answer. */
  readonly answers: Readonly<Record<string, Readonly<Record<string, string>>>>
}

/** One answer the previous release accepted and this one does not accept with the same calls. */
export interface DifferentialChange {
  readonly key: string
  readonly now: 'refused' | 'changed'
  /** Why, from `bench/eval/bfcl-justified-changes.ts`; `undefined` for a change nobody justified. */
  readonly reason: string | undefined
  /** The previous release's calls matched BFCL's possible answer: a correct answer now refused. */
  readonly wasCorrect: boolean
  readonly detail: string
}

/** The differential against the previous release, over the scored BFCL text outputs. */
export interface BfclDifferential {
  readonly release: string
  /** Answers the previous release accepted with a faithful value. */
  readonly baseline: number
  /** … still accepted with the same calls. */
  readonly kept: number
  readonly changes: readonly DifferentialChange[]
  /** Changes not listed in `bench/eval/bfcl-justified-changes.ts` (must be none). */
  readonly unjustified: number
  /** Correct answers (matching possible_answer) the previous release did not accept with a faithful value and this one accepts. */
  readonly gainedCorrect: number
}

/** The key of one output: model and question id (unique in the corpus). */
export const outputKey = (out: { readonly model: string; readonly id: string }): string => `${out.model}/${out.id}`

/** A short hash of calls, names compared with dots as underscores (as the oracle compares them). */
export function callsHash(calls: readonly Call[]): string {
  const canonical = JSON.stringify(calls.map((c) => [normName(c.name), c.args]))
  return createHash('sha256').update(canonical).digest('hex').slice(0, 8)
}

/** Where the baseline lives (gzipped JSON: ids and hashes of 9,000-odd answers). */
export const BASELINE_FILE = path.join(import.meta.dirname, 'bfcl-baseline.json.gz')

function readBaseline(): Baseline {
  return JSON.parse(gunzipSync(readFileSync(BASELINE_FILE)).toString('utf8')) as Baseline
}

/** The answer a release's `validateFinalAnswer` accepted, if faithful to the text: its calls, else `undefined`. */
export function faithfulCalls(raw: string, functions: Parameters<typeof callSchema>[0], verdict: unknown): readonly Call[] | undefined {
  const v = verdict as { ok: boolean; value?: unknown }
  if (!v.ok) return undefined
  const calls = v.value as Call[]
  return faithfulTo(raw, calls) && calls.length >= callsWritten(raw, functions) ? calls : undefined
}

/**
 * Every scored BFCL answer the previous release accepted with a faithful value, through this
 * release: still accepted with the same calls, or a change, justified or not.
 */
export function measureBfclDifferential(): BfclDifferential {
  const baseline = readBaseline()
  const { outputs, answers } = bfclTextOutputs()
  const changes: DifferentialChange[] = []
  let kept = 0
  let gainedCorrect = 0
  for (const out of outputs) {
    const truth = answers.get(out.id)
    if (truth === undefined) continue
    const key = outputKey(out)
    const before = baseline.answers[out.model]?.[out.id]
    const verdict = validateFinalAnswer(out.raw, compileSchema(callSchema(out.functions)), { repair: true })
    if (verdict instanceof Promise) throw new Error('the call schema is synchronous')
    const calls = verdict.ok ? (verdict.value as Call[]) : undefined
    if (before === undefined) {
      if (calls !== undefined && matchesGroundTruth(calls, truth, out.functions)) gainedCorrect++
      continue
    }
    const wasCorrect = before.endsWith('+')
    if (calls !== undefined && `${callsHash(calls)}${wasCorrect ? '+' : ''}` === before) {
      kept++
      continue
    }
    const detail = verdict.ok ? JSON.stringify(calls).slice(0, 160) : (verdict.failure.parseError ?? verdict.failure.message).slice(0, 160)
    changes.push({ key, now: verdict.ok ? 'changed' : 'refused', reason: JUSTIFIED_CHANGES[key], wasCorrect, detail })
  }
  const unjustified = changes.filter((c) => c.reason === undefined).length
  const size = Object.values(baseline.answers).reduce((n, ids) => n + Object.keys(ids).length, 0)
  return { release: baseline.release, baseline: size, kept, changes, unjustified, gainedCorrect }
}
