import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { ValidationIssue } from '../../src/index.ts'
import { compileSchema, type CompiledSchema } from '../../src/validation/building-blocks.ts'
import type { JsonSchemaObject } from '../../src/validation/index.ts'
import { untar } from '../support/corpora.ts'
import { shuffled } from '../support/prng.ts'

interface MaskBenchFile {
  readonly schema: unknown
  readonly tests: readonly { readonly valid: boolean; readonly data: unknown; readonly python_error?: string }[]
}

export interface MaskBenchOptions {
  readonly sampleSize: number
  readonly seed: number
}

export interface SplitCount {
  readonly split: string
  readonly schemas: number
  readonly sampled: number
}

export interface MaskBenchResult {
  readonly seed: number
  readonly sampled: number
  readonly splits: readonly SplitCount[]
  readonly compileFailures: number
  readonly compileFailureReasons: readonly { readonly reason: string; readonly count: number }[]
  /** Instances of compiled schemas: how many our verdict agrees with the reference label on. */
  readonly instances: {
    readonly total: number
    readonly agree: number
    readonly validTotal: number
    readonly validAgree: number
    readonly invalidTotal: number
    readonly invalidAgree: number
  }
  /** Invalid instances we rejected and whose reference error names an instance path. */
  readonly pathNamed: { readonly total: number; readonly exact: number; readonly exactOrChild: number }
  /** A few disagreements, for reading. */
  readonly examples: readonly { readonly file: string; readonly label: boolean; readonly ours: boolean; readonly detail: string }[]
}

/** The split a MaskBench file belongs to: `Github_easy---o1.json` -> Github_easy, `JME_0.json` -> JME. */
export function splitOf(file: string): string {
  const name = file.replace(/\.json$/, '')
  const dashes = name.indexOf('---')
  if (dashes >= 0) return name.slice(0, dashes)
  return name.replace(/_\d+$/, '')
}

/**
 * A seeded, stratified sample: each split contributes in proportion to its size (at least
 * `min(size, 10)` files), shuffled with the seed, so the same files are drawn on every machine.
 */
export function sampleFiles(files: readonly string[], size: number, seed: number): { picked: string[]; splits: SplitCount[] } {
  const bySplit = new Map<string, string[]>()
  for (const file of [...files].sort()) {
    const split = splitOf(file)
    bySplit.set(split, [...(bySplit.get(split) ?? []), file])
  }
  const picked: string[] = []
  const splits: SplitCount[] = []
  for (const [split, members] of [...bySplit.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const quota = Math.min(members.length, Math.max(10, Math.round((size * members.length) / files.length)))
    picked.push(...shuffled(members, seed).slice(0, quota))
    splits.push({ split, schemas: members.length, sampled: quota })
  }
  return { picked, splits }
}

const PY_SEGMENT = /\[(\d+|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\]/g

/** The instance path of a python-jsonschema error (`On instance['a'][0]:`), or undefined. */
export function pythonInstancePath(error: string): (string | number)[] | undefined {
  const match = /On instance((?:\[[^\n]*?\])*):/.exec(error)
  if (match === null) return undefined
  const segments: (string | number)[] = []
  for (const [, token] of (match[1] ?? '').matchAll(PY_SEGMENT)) {
    if (token === undefined) continue
    segments.push(/^\d+$/.test(token) ? Number(token) : token.slice(1, -1).replace(/\\(.)/g, '$1'))
  }
  return segments
}

function reasonKey(message: string): string {
  const regex = /Invalid regular expression: .*: ([^:]+)$/.exec(message)
  // Python's `re` (the reference) accepts escapes that ECMAScript regexes in `u` mode reject.
  if (regex !== null) return `pattern is not a valid ECMAScript regex in unicode mode (${regex[1]})`
  return message
    .replace(/"[^"]*"/g, '"…"')
    .replace(/'[^']*'/g, "'…'")
    .replace(/#\/[^\s:]*/g, '#/…')
    .slice(0, 120)
}

const same = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((x, i) => x === b[i])

/**
 * MaskBench (JSONSchemaBench): compiles each sampled schema through the raw-JSON-Schema path and
 * checks every test instance against the reference valid/invalid label.
 */
export function runMaskBench(options: MaskBenchOptions): MaskBenchResult {
  const dir = path.join(untar('jsonschemabench-maskbench/maskbench-data.tar.gz'), 'data')
  const { picked, splits } = sampleFiles(
    readdirSync(dir).filter((f) => f.endsWith('.json')),
    options.sampleSize,
    options.seed,
  )
  const reasons = new Map<string, number>()
  const inst = { total: 0, agree: 0, validTotal: 0, validAgree: 0, invalidTotal: 0, invalidAgree: 0 }
  const named = { total: 0, exact: 0, exactOrChild: 0 }
  const examples: { file: string; label: boolean; ours: boolean; detail: string }[] = []
  let compileFailures = 0
  for (const file of picked) {
    const entry = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as MaskBenchFile
    let compiled: CompiledSchema
    try {
      compiled = compileSchema(entry.schema as JsonSchemaObject)
    } catch (error) {
      compileFailures++
      const key = reasonKey((error as Error).message)
      reasons.set(key, (reasons.get(key) ?? 0) + 1)
      continue
    }
    for (const test of entry.tests) {
      const verdict = compiled.validate(test.data)
      if (verdict instanceof Promise) throw new Error('the raw-JSON-Schema path answered with a promise')
      const agree = verdict.ok === test.valid
      inst.total++
      if (agree) inst.agree++
      if (test.valid) {
        inst.validTotal++
        if (agree) inst.validAgree++
      } else {
        inst.invalidTotal++
        if (agree) inst.invalidAgree++
      }
      if (!agree && examples.length < 12) {
        const detail = verdict.ok ? ((test.python_error ?? '').split('\n')[0] ?? '') : verdict.issues.map((i) => `${i.path}: ${i.message}`).join('; ')
        examples.push({ file, label: test.valid, ours: verdict.ok, detail: detail.slice(0, 200) })
      }
      if (!test.valid && !verdict.ok && test.python_error !== undefined) {
        const reference = pythonInstancePath(test.python_error)
        if (reference === undefined) continue
        named.total++
        const issues: readonly ValidationIssue[] = verdict.issues
        if (issues.some((i) => same(i.segments, reference))) named.exact++
        if (issues.some((i) => same(i.segments, reference) || (i.segments.length === reference.length + 1 && same(i.segments.slice(0, -1), reference))))
          named.exactOrChild++
      }
    }
  }
  return {
    seed: options.seed,
    sampled: picked.length,
    splits,
    compileFailures,
    compileFailureReasons: [...reasons.entries()].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count),
    instances: inst,
    pathNamed: named,
    examples,
  }
}
