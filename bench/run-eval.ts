/**
 * `npm run eval`: behaviour on real data from ../shared/corpora (JSON-Schema-Test-Suite, MaskBench,
 * provider structured-output schemas, tau-bench, BFCL); writes bench/results/eval.json and
 * regenerates BENCHMARKS.md. The figures pinned in bench/eval-pins.json are re-checked by test/eval/.
 * `RG_EVAL_ONLY=providerSchema` (a comma-separated list of result keys) re-runs only those sections
 * and keeps the others from the existing bench/results/eval.json.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { runBfclAgreement, runBfclExtraction } from './eval/bfcl.ts'
import { measureBfclCuts } from './eval/bfcl-cuts.ts'
import { measureBfclDifferential } from './eval/bfcl-differential.ts'
import { measureBfclReplay } from './eval/bfcl-replay.ts'
import { runJsonSchemaSuite } from './eval/json-schema-suite.ts'
import { runMaskBench } from './eval/maskbench.ts'
import { runPeerSchemaCensus } from './eval/peer-schema-census.ts'
import { runProviderSchemaCensus } from './eval/provider-schema.ts'
import { runTauBench } from './eval/tau-bench.ts'
import pins from './eval-pins.json' with { type: 'json' }
import { writeReport } from './report.ts'
import { cleanupCorpora } from './support/corpora.ts'
import { machine } from './support/machine.ts'

const RESULTS = path.resolve(import.meta.dirname, 'results/eval.json')

function timed<T>(label: string, run: () => T): T {
  const t0 = performance.now()
  const result = run()
  console.log(`${label}: ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  return result
}

async function timedAsync<T>(label: string, run: () => Promise<T>): Promise<T> {
  const t0 = performance.now()
  const result = await run()
  console.log(`${label}: ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  return result
}

/**
 * The side-by-side census runs on the whole corpus; `RG_PEER_SAMPLE=n` takes a seeded sample of about
 * n schemas instead (a quick look), `RG_PEER_SAMPLE=all` is the default.
 */
function peerSample(): { sampleSize: number; seed: number } | undefined {
  const given = process.env['RG_PEER_SAMPLE']
  if (given === undefined || given === '' || given === 'all') return undefined
  const size = Number(given)
  if (!Number.isInteger(size) || size <= 0) throw new Error(`RG_PEER_SAMPLE: a whole number above 0 or "all", got "${given}"`)
  return { sampleSize: size, seed: 7 }
}

const sections: Readonly<Record<string, () => unknown | Promise<unknown>>> = {
  jsonSchemaSuite: () => [
    timed('JSON-Schema-Test-Suite draft2020-12', () => runJsonSchemaSuite('draft2020-12')),
    timed('JSON-Schema-Test-Suite draft7', () => runJsonSchemaSuite('draft7')),
  ],
  maskBench: () => timed('MaskBench', () => runMaskBench(pins.maskBench.full)),
  providerSchema: () => timed('Provider schemas on MaskBench', () => runProviderSchemaCensus()),
  // The same schemas through @mastra/schema-compat and the AI SDK providers' transforms, side by side with ours.
  // The whole corpus, each tool in bounded workers (a schema that kills a tool is that tool's failure); RG_PEER_SAMPLE=n samples.
  peerSchemas: () => timedAsync('Provider schemas: ours, Mastra, AI SDK', () => runPeerSchemaCensus(peerSample())),
  tauBench: () => timed('tau-bench', () => runTauBench()),
  bfclExtraction: () => timed('BFCL extraction', () => runBfclExtraction()),
  bfclAgreement: () => timed('BFCL agreement', () => runBfclAgreement()),
  bfclDifferential: () => timed('BFCL differential against the previous release', () => measureBfclDifferential()),
  // Every accepted answer cut at every position (RG_CUT_EVERY=n takes one output in n, for a quick look).
  bfclCuts: () => timed('BFCL cut sweep', () => measureBfclCuts(Number(process.env['RG_CUT_EVERY'] || 1))),
  // First answers replayed (replayTrace) under a schema and its provider-strict version: per-model acceptance changes.
  bfclReplay: () => timed('BFCL first answers replayed under two schema versions', () => measureBfclReplay()),
}
const only = (process.env['RG_EVAL_ONLY'] ?? '').split(',').filter((key) => key !== '')
for (const key of only) if (!(key in sections)) throw new Error(`RG_EVAL_ONLY: unknown section "${key}"; the sections are ${Object.keys(sections).join(', ')}`)
const previous = only.length > 0 && existsSync(RESULTS) ? (JSON.parse(readFileSync(RESULTS, 'utf8')) as Record<string, unknown>) : {}
const results: Record<string, unknown> = { ...previous, machine: only.length > 0 && previous['machine'] !== undefined ? previous['machine'] : machine() }
for (const [key, run] of Object.entries(sections)) if (only.length === 0 || only.includes(key)) results[key] = await run()
cleanupCorpora()
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`)
writeReport()
console.log(`wrote ${path.relative(process.cwd(), RESULTS)} and BENCHMARKS.md`)
