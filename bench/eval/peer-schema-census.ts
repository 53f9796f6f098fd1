import { Worker } from 'node:worker_threads'
import { type CompiledSchema, compileProviderSchema, compileSchema, PROVIDER_TARGETS, type ProviderTarget } from '../../src/validation/building-blocks.ts'
import type { JsonSchemaObject } from '../../src/validation/index.ts'
import { geminiToJsonSchema } from './gemini-json-schema.ts'
import { PEER_TRANSFORMS, type PeerOutcome } from './peer-transforms.ts'
import { maskBenchFiles } from './provider-schema.ts'
import { providerRuleBreak } from './provider-rules.ts'
import { hasReachableMap } from './schema-maps.ts'
import { openObjects, optionalMadeRequired, withoutAnnotations, xOptionalForward } from './schema-walks.ts'

/** One tool's transform of every schema for one provider, and the meaning changes it makes. */
export interface PeerCensus {
  readonly tool: 'reliability-gate' | 'mastra' | 'ai-sdk'
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
  readonly examples: readonly string[]
}

export interface PeerSchemaResult {
  readonly files: number
  /** The seeded stratified MaskBench sample the census ran on; absent: the whole corpus. */
  readonly sample?: { readonly sampleSize: number; readonly seed: number }
  readonly rows: readonly PeerCensus[]
}

interface Original {
  readonly file: string
  readonly schema: unknown
  readonly tests: readonly { readonly data: unknown }[]
  readonly verdict: CompiledSchema
  readonly map: boolean
}

/** What a tool sends for a schema, and how it maps a value the original accepts to the one it expects. */
interface Sent {
  readonly schema: unknown
  readonly forward: (value: unknown) => unknown
  /** The tool maps the provider's answer back (ours: `back`; Mastra: `x-optional` null to absent). */
  readonly reverse: boolean
}

/** The tools of the census, each run in a worker of its own (see {@link runPeerSchemaCensus}). */
export const CENSUS_TOOLS: readonly PeerCensus['tool'][] = ['reliability-gate', 'mastra', 'ai-sdk']

type Sample = { readonly sampleSize: number; readonly seed: number }

/** Schemas per worker: what one heap holds of the library's compiled validators, with room to spare. */
const CHUNK = 1_500

/**
 * The same MaskBench schemas through our `compileProviderSchema`, `@mastra/schema-compat`'s compat
 * layers and the AI SDK providers' own transforms, per provider, checked on the corpus's instances:
 * what each sends, whether the provider's documented rules refuse it, and the meaning changes. Each
 * tool runs over chunks of the corpus, each chunk in a worker thread of its own (the library's
 * validator keeps what it compiled, and the whole corpus through one tool does not fit one heap);
 * the chunks' counts are summed. `isolate: false` runs it all in this thread (a small sample, in tests).
 */
export async function runPeerSchemaCensus(sample?: Sample, options: { readonly isolate?: boolean } = {}): Promise<PeerSchemaResult> {
  const total = maskBenchFiles(sample).length
  let files = 0
  const rows: PeerCensus[] = []
  for (const tool of CENSUS_TOOLS) {
    const parts: PeerSchemaResult[] = []
    if (options.isolate === false) parts.push(await censusOfTool(tool, sample))
    else for (let offset = 0; offset < total; offset += CHUNK) parts.push(await inWorker(tool, sample, { offset, limit: CHUNK }))
    files = parts.reduce((sum, part) => sum + part.files, 0)
    rows.push(...summed(parts))
  }
  return { files, rows, ...(sample !== undefined ? { sample } : {}) }
}

/** The rows of the chunks of one tool, added up per target. */
function summed(parts: readonly PeerSchemaResult[]): PeerCensus[] {
  const [first, ...rest] = parts
  if (first === undefined) return []
  return first.rows.map((row, i) => {
    let out: Record<string, unknown> = { ...row }
    for (const part of rest) {
      const other = part.rows[i] as PeerCensus
      out = Object.fromEntries(
        Object.entries(out).map(([k, v]) => [
          k,
          typeof v === 'number' ? v + (other[k as keyof PeerCensus] as number) : k === 'examples' ? [...(v as string[]), ...other.examples].slice(0, 8) : v,
        ]),
      )
    }
    return out as unknown as PeerCensus
  })
}

function inWorker(tool: PeerCensus['tool'], sample: Sample | undefined, chunk: { readonly offset: number; readonly limit: number }): Promise<PeerSchemaResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./peer-census-worker.ts', import.meta.url), {
      workerData: { tool, sample, chunk },
      resourceLimits: { maxOldGenerationSizeMb: 8192 },
    })
    worker.once('message', (result: PeerSchemaResult) => resolve(result))
    worker.once('error', reject)
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the ${tool} census worker exited with code ${code}`))
    })
  })
}

/** The census rows of one tool, one per provider target. */
export async function censusOfTool(
  tool: PeerCensus['tool'],
  sample?: Sample,
  chunk: { readonly offset: number; readonly limit: number } = { offset: 0, limit: Number.POSITIVE_INFINITY },
): Promise<PeerSchemaResult> {
  const originals: Original[] = []
  for (const { file, entry } of maskBenchFiles(sample).slice(chunk.offset, chunk.offset + chunk.limit)) {
    try {
      originals.push({
        file,
        schema: entry.schema,
        tests: entry.tests,
        verdict: compileSchema(entry.schema as JsonSchemaObject),
        map: hasReachableMap(entry.schema),
      })
    } catch {
      // A schema the library's validator refuses is out of every census.
    }
  }
  const rows: PeerCensus[] = []
  if (tool === 'reliability-gate') {
    for (const target of PROVIDER_TARGETS) {
      rows.push(await censusOf(tool, target, `compileProviderSchema(schema, '${target}')`, originals, async (schema) => ours(schema, target)))
    }
  }
  for (const peer of PEER_TRANSFORMS.filter((p) => p.tool === tool)) {
    rows.push(
      await censusOf(peer.tool, peer.target, peer.via, originals, async (schema) => {
        const outcome: PeerOutcome = await peer.transform(schema)
        if (!outcome.ok) return outcome
        const mastraOpenAI = peer.tool === 'mastra' && peer.target === 'openai-strict'
        return {
          ok: true,
          sent: { schema: outcome.schema, forward: mastraOpenAI ? (v) => xOptionalForward(outcome.schema, v) : (v) => v, reverse: mastraOpenAI },
        }
      }),
    )
  }
  return { files: originals.length, rows }
}

function ours(schema: unknown, target: ProviderTarget): { ok: true; sent: Sent } | { ok: false; reason: string } {
  const result = compileProviderSchema(schema, target)
  if (!result.ok) return { ok: false, reason: result.reason }
  return { ok: true, sent: { schema: target === 'gemini' ? geminiToJsonSchema(result.schema) : result.schema, forward: result.forward, reverse: true } }
}

async function censusOf(
  tool: PeerCensus['tool'],
  target: ProviderTarget,
  via: string,
  originals: readonly Original[],
  send: (schema: unknown) => Promise<{ ok: true; sent: Sent } | { ok: false; reason: string }>,
): Promise<PeerCensus> {
  const c = { sent: 0, refused: 0, breaksProviderRules: 0, unchecked: 0, valid: 0, validRejected: 0, validRejectedByClosing: 0, invalidAccepted: 0 }
  const m = { mapsLost: 0, optionalRequired: 0, changedSchemas: 0 }
  const examples: string[] = []
  const note = (file: string, what: string) => {
    if (examples.length < 8) examples.push(`${file}: ${what}`)
  }
  for (const original of originals) {
    const outcome = await send(original.schema)
    if (!outcome.ok) {
      c.refused++
      continue
    }
    c.sent++
    const { sent } = outcome
    // Ours sends Gemini the OpenAPI responseSchema; its rules are checked on what it means, as the others'.
    if (providerRuleBreak(target, tool === 'reliability-gate' && target === 'gemini' ? undefined : sent.schema) !== undefined) c.breaksProviderRules++
    let changed = false
    if (original.map && !hasReachableMap(sent.schema)) {
      m.mapsLost++
      changed = true
      note(original.file, 'a map lost')
    }
    if (!sent.reverse && optionalMadeRequired(original.schema, sent.schema)) {
      m.optionalRequired++
      changed = true
      note(original.file, 'an optional property made required')
    }
    let checker: CompiledSchema
    try {
      checker = compileSchema(withoutAnnotations(sent.schema) as JsonSchemaObject)
    } catch {
      c.unchecked++
      if (changed) m.changedSchemas++
      continue
    }
    let opened: CompiledSchema | undefined
    for (const test of original.tests) {
      const image = safely(() => sent.forward(test.data))
      if (accepts(original.verdict, test.data)) {
        c.valid++
        if (accepts(checker, image)) continue
        c.validRejected++
        opened ??= safely(() => compileSchema(openObjects(withoutAnnotations(sent.schema)) as JsonSchemaObject)) as CompiledSchema | undefined
        if (opened !== undefined && accepts(opened, image)) c.validRejectedByClosing++
        else if (!changed) {
          changed = true
          note(original.file, `valid instance rejected: ${JSON.stringify(test.data).slice(0, 80)}`)
        }
      } else if (accepts(checker, image)) c.invalidAccepted++
    }
    if (changed) m.changedSchemas++
  }
  return { tool, target, via, schemas: originals.length, ...c, ...m, examples }
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
