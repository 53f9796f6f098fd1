import { type CompiledSchema, compileSchema, type ProviderTarget } from '../../src/validation/building-blocks.ts'
import type { JsonSchemaObject } from '../../src/validation/index.ts'
import { type CensusTool, type Send, senders } from './peer-senders.ts'
import { maskBenchFiles, maskBenchNames } from './provider-schema.ts'
import { providerRuleBreak } from './provider-rules.ts'
import { hasReachableMap } from './schema-maps.ts'
import { type StepFailure, superviseWorkers } from './supervised-workers.ts'
import { openObjects, optionalMadeRequired, withoutAnnotations } from './schema-walks.ts'

/** One tool's transform of every schema for one provider, and the meaning changes it makes. */
export interface PeerCensus {
  readonly tool: CensusTool
  readonly target: ProviderTarget
  readonly via: string
  readonly schemas: number
  /** Schemas the tool sends in the provider's native mode. */
  readonly sent: number
  /** Schemas the tool does not send natively (refused: ours goes one mode down; a peer throws). */
  readonly refused: number
  /** Sent schemas that break a documented rule of the provider (it answers 400). */
  readonly breaksProviderRules: number
  /** Sent schemas the library's validator cannot build a checker for (their instances are not counted). */
  readonly unchecked: number
  /** Instances the original accepts, of the counted sent schemas... */
  readonly valid: number
  /** ...that the sent schema rejects (after the tool's own forward mapping, where it has one)... */
  readonly validRejected: number
  /** ...of which only because an open object was closed to its declared properties. */
  readonly validRejectedByClosing: number
  /** Instances the original rejects that the sent schema accepts: the provider may emit them. */
  readonly invalidAccepted: number
  /** Sent schemas with a reachable map that has none any more (closed or dropped). */
  readonly mapsLost: number
  /** Sent schemas where an optional property became required with no mapping back (absent made `null`). */
  readonly optionalRequired: number
  /** Sent schemas with a meaning change: a valid instance rejected other than by closing, a map lost, an optional property required. */
  readonly changedSchemas: number
  /** Schemas on which the tool itself failed: its transform ran out of memory or over the time limit (a finding, not dropped). */
  readonly failed: number
  /** Sent schemas whose check by the census itself did not finish (out of memory or time): not counted above. */
  readonly uncounted: number
  readonly examples: readonly string[]
  /** `file: why` of the schemas in `failed` and `uncounted` (the first 8). */
  readonly failures: readonly string[]
}

export interface PeerSchemaResult {
  readonly files: number
  /** The seeded stratified MaskBench sample the census ran on; absent: the whole corpus. */
  readonly sample?: { readonly sampleSize: number; readonly seed: number }
  readonly rows: readonly PeerCensus[]
  /** Schemas the census could not even read and compile with the library's validator in a worker's bounds. */
  readonly unmeasured: readonly string[]
  /** The bounds each schema ran under (the whole census, or absent: in this thread, unbounded). */
  readonly limits?: { readonly heapMb: number; readonly stepSeconds: number }
}

interface Original {
  readonly file: string
  readonly schema: unknown
  readonly tests: readonly { readonly data: unknown }[]
  readonly verdict: CompiledSchema
  readonly map: boolean
}

/** The tools of the census, each run in workers of its own (see {@link runPeerSchemaCensus}). */
export const CENSUS_TOOLS: readonly PeerCensus['tool'][] = ['reliability-gate', 'mastra', 'ai-sdk']

type Sample = { readonly sampleSize: number; readonly seed: number }
type Limits = { readonly heapMb: number; readonly stepSeconds: number; readonly chunk: number }
type Row = { -readonly [K in keyof PeerCensus]: PeerCensus[K] extends readonly string[] ? string[] : PeerCensus[K] }

/** Per worker: a heap of 3 GB over 1,500 schemas (the validator keeps what it compiled), 60 s per step of one schema. */
export const CENSUS_LIMITS: Limits = { heapMb: 3_072, stepSeconds: 60, chunk: 1_500 }

/** Per schema, the steps a worker marks: 0 reads and compiles the original; per row r, `1 + 2r` the tool's transform, `2 + 2r` the census's checks. */
export const transformStep = (row: number) => 1 + 2 * row

/**
 * The same MaskBench schemas through our `compileProviderSchema`, `@mastra/schema-compat`'s compat
 * layers and the AI SDK providers' own transforms, per provider, checked on the corpus's instances:
 * what each sends, whether the provider's documented rules refuse it, and the meaning changes. Each
 * tool runs over chunks of the corpus in worker threads with a bounded heap and a time limit per
 * step of one schema (`superviseWorkers`): a schema whose transform kills the worker (out of memory,
 * over the time limit) is isolated and counted in that tool's `failed` column; the census goes on.
 * `isolate: false` runs it all in this thread, unbounded (a small sample, in tests).
 */
export async function runPeerSchemaCensus(sample?: Sample, options: { readonly isolate?: boolean; readonly limits?: Limits } = {}): Promise<PeerSchemaResult> {
  const limits = options.limits ?? CENSUS_LIMITS
  const names = maskBenchNames(sample)
  const indices = names.map((_, i) => i)
  let files = 0
  const rows: PeerCensus[] = []
  const unmeasured = new Set<string>()
  for (const tool of CENSUS_TOOLS) {
    let perSchema: (PeerSchemaResult | undefined)[]
    let failures: readonly StepFailure[] = []
    if (options.isolate === false) perSchema = await censusOfTool(tool, sample, indices)
    else {
      const work: CensusWork = sample === undefined ? { tool } : { tool, sample }
      const run = await superviseWorkers<CensusWork, PeerSchemaResult | undefined>(new URL('./peer-census-worker.ts', import.meta.url), work, indices, limits)
      perSchema = indices.map((i) => run.results.get(i))
      failures = run.failures
    }
    for (const failure of failures) if (failure.step === 0) unmeasured.add(`${names[failure.index]}: ${failure.why}`)
    const parts = perSchema.filter((part) => part !== undefined)
    files = parts.reduce((sum, part) => sum + part.files, 0)
    rows.push(...summed(parts))
  }
  return { files, rows, unmeasured: [...unmeasured], ...(sample !== undefined ? { sample } : {}), ...(options.isolate === false ? {} : { limits }) }
}

/** What a census worker is given besides its indices. */
export interface CensusWork {
  readonly tool: PeerCensus['tool']
  readonly sample?: Sample
}

/** The rows of the schemas of one tool, added up per target. */
function summed(parts: readonly PeerSchemaResult[]): PeerCensus[] {
  const [first, ...rest] = parts
  if (first === undefined) return []
  return first.rows.map((row, i) => {
    const out: Record<string, unknown> = { ...row }
    for (const part of rest) {
      const other = part.rows[i] as PeerCensus
      for (const [k, v] of Object.entries(out)) {
        if (typeof v === 'number') out[k] = v + (other[k as keyof PeerCensus] as number)
        else if (Array.isArray(v) && v.length < 8) out[k] = [...v, ...(other[k as keyof PeerCensus] as string[])].slice(0, 8)
      }
    }
    return out as unknown as PeerCensus
  })
}

/**
 * The census of one tool, one result per schema of `indices` (`undefined`: the library's validator
 * refuses the original, out of every census). `mark(index, step)` is called before each step;
 * `failed` holds the steps that killed a worker, counted instead of run.
 */
export async function censusOfTool(
  tool: PeerCensus['tool'],
  sample: Sample | undefined,
  indices: readonly number[],
  mark: (index: number, step: number) => void = () => {},
  failed: readonly StepFailure[] = [],
  report: (index: number, result: PeerSchemaResult | undefined) => void = () => {},
): Promise<(PeerSchemaResult | undefined)[]> {
  const sends = senders(tool)
  const out: (PeerSchemaResult | undefined)[] = []
  if (indices.length === 0) return out
  const low = Math.min(...indices)
  const files = maskBenchFiles(sample, { offset: low, limit: Math.max(...indices) - low + 1 })
  for (const index of indices) {
    const { file, entry } = files[index - low] as (typeof files)[number]
    const failedAt = (step: number) => failed.find((f) => f.index === index && f.step === step)?.why
    mark(index, 0)
    let original: Original | undefined
    if (failedAt(0) === undefined) {
      try {
        original = {
          file,
          schema: entry.schema,
          tests: entry.tests,
          verdict: compileSchema(entry.schema as JsonSchemaObject),
          map: hasReachableMap(entry.schema),
        }
      } catch {
        // A schema the library's validator refuses is out of every census.
      }
    }
    let result: PeerSchemaResult | undefined
    if (original !== undefined) {
      const rows: Row[] = []
      for (const [r, { target, via, send }] of sends.entries()) {
        const row = emptyRow(tool, target, via)
        const transformFailed = failedAt(transformStep(r))
        if (transformFailed !== undefined) {
          row.failed++
          row.failures.push(`${file}: ${transformFailed}`)
        } else await censusOne(row, original, send, (phase) => mark(index, transformStep(r) + phase), failedAt(transformStep(r) + 1))
        rows.push(row)
      }
      result = { files: 1, rows, unmeasured: [] }
    }
    report(index, result)
    out.push(result)
  }
  return out
}
function emptyRow(tool: PeerCensus['tool'], target: ProviderTarget, via: string): Row {
  const counts = { sent: 0, refused: 0, breaksProviderRules: 0, unchecked: 0, valid: 0, validRejected: 0, validRejectedByClosing: 0, invalidAccepted: 0 }
  return { tool, target, via, schemas: 1, ...counts, mapsLost: 0, optionalRequired: 0, changedSchemas: 0, failed: 0, uncounted: 0, examples: [], failures: [] }
}

/**
 * One schema through one tool for one target, counted into `row`: `phase(0)` before the tool's
 * transform, `phase(1)` before the census's own checks; `checkFailed`: those checks killed a worker before.
 */
async function censusOne(row: Row, original: Original, send: Send, phase: (phase: 0 | 1) => void, checkFailed: string | undefined): Promise<void> {
  const note = (what: string) => {
    if (row.examples.length < 8) row.examples.push(`${original.file}: ${what}`)
  }
  phase(0)
  const outcome = await send(original.schema)
  phase(1)
  if (!outcome.ok) {
    row.refused++
    return
  }
  row.sent++
  if (checkFailed !== undefined) {
    row.uncounted++
    row.failures.push(`${original.file}: the census's check ${checkFailed}`)
    return
  }
  const { sent } = outcome
  // Ours sends Gemini the OpenAPI responseSchema; its rules are checked on what it means, as the others'.
  if (providerRuleBreak(row.target, row.tool === 'reliability-gate' && row.target === 'gemini' ? undefined : sent.schema) !== undefined)
    row.breaksProviderRules++
  let changed = false
  if (original.map && !hasReachableMap(sent.schema)) {
    row.mapsLost++
    changed = true
    note('a map lost')
  }
  if (!sent.reverse && optionalMadeRequired(original.schema, sent.schema)) {
    row.optionalRequired++
    changed = true
    note('an optional property made required')
  }
  let checker: CompiledSchema
  try {
    checker = compileSchema(withoutAnnotations(sent.schema) as JsonSchemaObject)
  } catch {
    row.unchecked++
    if (changed) row.changedSchemas++
    return
  }
  let opened: CompiledSchema | undefined
  for (const test of original.tests) {
    const image = safely(() => sent.forward(test.data))
    if (accepts(original.verdict, test.data)) {
      row.valid++
      if (accepts(checker, image)) continue
      row.validRejected++
      opened ??= safely(() => compileSchema(openObjects(withoutAnnotations(sent.schema)) as JsonSchemaObject)) as CompiledSchema | undefined
      if (opened !== undefined && accepts(opened, image)) row.validRejectedByClosing++
      else if (!changed) {
        changed = true
        note(`valid instance rejected: ${JSON.stringify(test.data).slice(0, 80)}`)
      }
    } else if (accepts(checker, image)) row.invalidAccepted++
  }
  if (changed) row.changedSchemas++
}

function accepts(schema: CompiledSchema, value: unknown): boolean {
  try {
    const verdict = schema.validate(value)
    return !(verdict instanceof Promise) && verdict.ok
  } catch {
    return false
  }
}

function safely<T>(run: () => T): T | undefined {
  try {
    return run()
  } catch {
    return undefined
  }
}
