/**
 * Writes bench/eval/bfcl-baseline.json.gz: the scored BFCL answers a previous release accepted with a
 * value faithful to the text, for the differential of `bfcl-differential.ts`. Run once per baseline,
 * against that release's sources checked out elsewhere (`git archive <commit> src | tar -x -C dir`,
 * with `node_modules` beside it):
 *
 *   RG_BASELINE_SRC=/tmp/old/src RG_BASELINE_RELEASE=d734884 node bench/eval/bfcl-baseline.ts
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import { bfclTextOutputs } from './bfcl-correctness.ts'
import { BASELINE_FILE, type Baseline, callsHash, faithfulCalls, outputKey } from './bfcl-differential.ts'
import { callSchema, matchesGroundTruth } from './bfcl-oracle.ts'

const src = process.env['RG_BASELINE_SRC']
const release = process.env['RG_BASELINE_RELEASE']
if (src === undefined || release === undefined) throw new Error('set RG_BASELINE_SRC (a release checkout src/) and RG_BASELINE_RELEASE (its commit)')
const old = (await import(pathToFileURL(path.join(src, 'validation/index.ts')).href)) as typeof import('../../src/validation/index.ts')

const { outputs, answers } = bfclTextOutputs()
const accepted: Record<string, Record<string, string>> = {}
let count = 0
for (const out of outputs) {
  const truth = answers.get(out.id)
  if (truth === undefined) continue
  const verdict = old.validateFinalAnswer(out.raw, old.compileSchema(callSchema(out.functions)), { repair: true })
  const calls = faithfulCalls(out.raw, out.functions, verdict)
  if (calls === undefined) continue
  const ids = (accepted[out.model] ??= {})
  if (out.id in ids) throw new Error(`two outputs share the key ${outputKey(out)}`)
  ids[out.id] = `${callsHash(calls)}${matchesGroundTruth(calls, truth, out.functions) ? '+' : ''}`
  count++
}
const baseline: Baseline = { release, answers: accepted }
writeFileSync(BASELINE_FILE, gzipSync(`${JSON.stringify(baseline, null, 0)}\n`, { level: 9 }))
console.log(`${count} answers accepted faithfully by ${release}`)
