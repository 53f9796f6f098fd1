import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { type CompiledSchema, compileProviderSchema, compileSchema, PROVIDER_TARGETS, type ProviderTarget } from '../../src/validation/building-blocks.ts'
import type { JsonSchemaObject } from '../../src/validation/index.ts'
import { untar } from '../support/corpora.ts'
import { geminiToJsonSchema } from './gemini-json-schema.ts'
import { sampleFiles } from './maskbench.ts'
import { hasReachableMap } from './schema-maps.ts'

interface MaskBenchFile {
  readonly schema: unknown
  readonly tests: readonly { readonly data: unknown }[]
}

/** The figures of one target over the corpus. */
export interface TargetCensus {
  readonly target: ProviderTarget
  readonly schemas: number
  readonly compiled: number
  /** Compiled schemas the library's validator could not compile back (their instances are not counted). */
  readonly unchecked: number
  /** Compiled schemas that narrow (an open object closed, a type inferred). */
  readonly narrowing: number
  readonly refusals: readonly { readonly reason: string; readonly count: number }[]
  /** Instances of compiled schemas the original accepts. */
  readonly valid: number
  /** ...whose forward image the compiled schema accepts. */
  readonly forwardAccepted: number
  /** ...whose forward image falls outside a reported narrowing (extra keys of an open object...). */
  readonly outsideNarrowing: number
  /** ...whose forward image the compiled schema rejects with no narrowing to explain it (must be 0). */
  readonly forwardRejected: number
  /** `back(forward(v))` not deep-equal to `v` (must be 0). */
  readonly changedValues: number
  /** Instances of compiled schemas the original rejects. */
  readonly invalid: number
  /** ...that the compiled schema accepts: the provider could emit them, the gate's verdict catches them. */
  readonly leftToGate: number
  /** ...that the original accepts after `back(forward(v))` (must be 0). */
  readonly newAccepts: number
  /** Schemas with a reachable map that compiled (must be 0: a map is refused, never closed). */
  readonly mapsClosed: number
  readonly mapsRefused: number
  readonly examples: readonly { readonly file: string; readonly what: string }[]
}

export interface ProviderSchemaResult {
  readonly files: number
  readonly targets: readonly TargetCensus[]
}

function accepts(compiled: CompiledSchema, value: unknown): boolean {
  const verdict = compiled.validate(value)
  if (verdict instanceof Promise) throw new Error('the raw-JSON-Schema path answered with a promise')
  return verdict.ok
}

function reasonKey(reason: string): string {
  return reason.replace(/"[^"]*"/g, '"…"').replace(/\d+/g, 'N')
}

const maskBenchDir = () => path.join(untar('jsonschemabench-maskbench/maskbench-data.tar.gz'), 'data')

/** The names of the MaskBench files (or of a seeded stratified sample of `sampleSize`), in census order. */
export function maskBenchNames(sample?: { readonly sampleSize: number; readonly seed: number }): string[] {
  const all = readdirSync(maskBenchDir()).filter((f) => f.endsWith('.json'))
  return sample === undefined ? all.sort() : sampleFiles(all, sample.sampleSize, sample.seed).picked
}

/** Every MaskBench file (or a seeded stratified sample of `sampleSize`; `slice` of those), parsed. */
export function maskBenchFiles(
  sample?: { readonly sampleSize: number; readonly seed: number },
  slice: { readonly offset: number; readonly limit: number } = { offset: 0, limit: Number.POSITIVE_INFINITY },
): { file: string; entry: MaskBenchFile }[] {
  const dir = maskBenchDir()
  const picked = maskBenchNames(sample).slice(slice.offset, slice.offset + slice.limit)
  return picked.map((file) => ({ file, entry: JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as MaskBenchFile }))
}

/**
 * Compiles every MaskBench schema the library's validator accepts for each provider target and
 * checks the compiler's invariant on the corpus's own instances: each valid one maps forward to a
 * value the compiled schema accepts and back to itself; no invalid one is accepted by the original
 * after the round trip; no map compiles.
 */
export function runProviderSchemaCensus(sample?: { readonly sampleSize: number; readonly seed: number }): ProviderSchemaResult {
  const files = maskBenchFiles(sample)
  const originals = files.flatMap(({ file, entry }) => {
    try {
      return [{ file, entry, original: compileSchema(entry.schema as JsonSchemaObject), map: hasReachableMap(entry.schema) }]
    } catch {
      return []
    }
  })
  const targets = PROVIDER_TARGETS.map((target) => censusOf(target, originals))
  return { files: originals.length, targets }
}

function censusOf(target: ProviderTarget, originals: readonly { file: string; entry: MaskBenchFile; original: CompiledSchema; map: boolean }[]): TargetCensus {
  const refusals = new Map<string, number>()
  const c = { compiled: 0, unchecked: 0, narrowing: 0, valid: 0, forwardAccepted: 0, outsideNarrowing: 0, forwardRejected: 0, changedValues: 0 }
  const d = { invalid: 0, leftToGate: 0, newAccepts: 0, mapsClosed: 0, mapsRefused: 0 }
  const examples: { file: string; what: string }[] = []
  for (const { file, entry, original, map } of originals) {
    const result = compileProviderSchema(entry.schema, target)
    if (!result.ok) {
      const key = reasonKey(result.reason)
      refusals.set(key, (refusals.get(key) ?? 0) + 1)
      if (map) d.mapsRefused++
      continue
    }
    c.compiled++
    if (map) {
      d.mapsClosed++
      examples.push({ file, what: 'a map compiled' })
    }
    if (result.narrowed.length > 0) c.narrowing++
    let compiled: CompiledSchema
    try {
      compiled = compileSchema((target === 'gemini' ? geminiToJsonSchema(result.schema) : result.schema) as JsonSchemaObject)
    } catch (error) {
      c.unchecked++
      examples.push({ file, what: `compiled schema does not compile: ${(error as Error).message.slice(0, 120)}` })
      continue
    }
    for (const test of entry.tests) {
      const forward = result.forward(test.data)
      const back = result.back(forward)
      // The invariant is about the original's own verdict (where it and the corpus label disagree,
      // the MaskBench section counts it).
      if (accepts(original, test.data)) {
        c.valid++
        if (accepts(compiled, forward)) c.forwardAccepted++
        else if (result.narrowed.length > 0) c.outsideNarrowing++
        else {
          c.forwardRejected++
          if (examples.length < 12) examples.push({ file, what: `forward image rejected: ${JSON.stringify(forward).slice(0, 120)}` })
        }
        if (!isDeepStrictEqual(back, test.data)) {
          c.changedValues++
          if (examples.length < 12) examples.push({ file, what: `changed: ${JSON.stringify(test.data).slice(0, 80)} -> ${JSON.stringify(back).slice(0, 80)}` })
        }
      } else {
        d.invalid++
        if (accepts(compiled, forward)) d.leftToGate++
        if (accepts(original, back)) {
          d.newAccepts++
          if (examples.length < 12) examples.push({ file, what: `new accept: ${JSON.stringify(test.data).slice(0, 120)}` })
        }
      }
    }
  }
  return {
    target,
    schemas: originals.length,
    ...c,
    refusals: [...refusals.entries()].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count),
    ...d,
    examples,
  }
}
