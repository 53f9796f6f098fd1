/**
 * `npm run eval`: behaviour on real data from ../shared/corpora (JSON-Schema-Test-Suite, MaskBench,
 * tau-bench, BFCL); writes bench/results/eval.json and regenerates BENCHMARKS.md. The figures pinned
 * in bench/eval-pins.json are re-checked by test/eval/.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { runBfclAgreement, runBfclExtraction } from './eval/bfcl.ts'
import { measureBfclCuts } from './eval/bfcl-cuts.ts'
import { measureBfclDifferential } from './eval/bfcl-differential.ts'
import { runJsonSchemaSuite } from './eval/json-schema-suite.ts'
import { runMaskBench } from './eval/maskbench.ts'
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

const results = {
  machine: machine(),
  jsonSchemaSuite: [
    timed('JSON-Schema-Test-Suite draft2020-12', () => runJsonSchemaSuite('draft2020-12')),
    timed('JSON-Schema-Test-Suite draft7', () => runJsonSchemaSuite('draft7')),
  ],
  maskBench: timed('MaskBench', () => runMaskBench(pins.maskBench.full)),
  tauBench: timed('tau-bench', () => runTauBench()),
  bfclExtraction: timed('BFCL extraction', () => runBfclExtraction()),
  bfclAgreement: timed('BFCL agreement', () => runBfclAgreement()),
  bfclDifferential: timed('BFCL differential against the previous release', () => measureBfclDifferential()),
  // Every accepted answer cut at every position (RG_CUT_EVERY=n takes one output in n, for a quick look).
  bfclCuts: timed('BFCL cut sweep', () => measureBfclCuts(Number(process.env['RG_CUT_EVERY'] || 1))),
}
cleanupCorpora()
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`)
writeReport()
console.log(`wrote ${path.relative(process.cwd(), RESULTS)} and BENCHMARKS.md`)
