/**
 * `npm run bench:arrangements` (`node --expose-gc bench/arrangements.ts`): what the V8 arrangements the library keeps buy, measured in one
 * run. Today one: the hidden-class witnesses (`keepShape`). A full collection drops a hidden class no live
 * object has and deoptimises the code that embedded it; the witnesses keep the classes of the run's
 * objects alive. Each row runs the same contender after a forced full GC, batches of 5,000 runs, with the
 * witnesses kept, then with them dropped (`dropKeptShapes`); writes bench/results/arrangements.json and
 * regenerates BENCHMARKS.md.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { dropKeptShapes } from '../src/model/keep-shape.ts'
import { CONTENDERS } from './contenders/index.ts'
import { writeReport } from './report.ts'
import type { ArrangementResults, ArrangementRow } from './report/arrangements-section.ts'
import { SCENARIOS } from './scenarios.ts'
import { machine } from './support/machine.ts'
import { AGENT_PLAIN, GATE_PLAIN } from './targets.ts'

const RESULTS = path.resolve(import.meta.dirname, 'results/arrangements.json')
const BATCHES = 15
const RUNS = 5_000
const collect = (globalThis as { gc?: () => void }).gc
if (collect === undefined) throw new Error('run with --expose-gc: the rows time the runs after a forced full collection')

const scenario = SCENARIOS.find((s) => s.id === 'a')
if (scenario === undefined) throw new Error('scenario (a) is missing')

/** Median ns per run of `call` over batches, each after a full collection. */
async function afterFullGc(call: () => Promise<unknown>): Promise<number> {
  const batches: number[] = []
  for (let b = 0; b < BATCHES; b++) {
    ;(collect as () => void)()
    const start = performance.now()
    for (let i = 0; i < RUNS; i++) await call()
    batches.push(((performance.now() - start) * 1e6) / RUNS)
  }
  batches.sort((x, y) => x - y)
  return batches[Math.floor(batches.length / 2)] as number
}

const startMachine = machine()
const prepared = []
for (const name of [GATE_PLAIN, AGENT_PLAIN]) {
  const entry = CONTENDERS.find((c) => c.name === name)
  if (entry === undefined) throw new Error(`unknown contender ${name}`)
  const runnable = await (await entry.load()).prepare(scenario)
  if ('unsupported' in runnable) throw new Error(`${name}: ${runnable.unsupported}`)
  // Settled code first, as every row of npm run bench.
  for (let i = 0; i < 200_000; i++) await runnable.call()
  prepared.push({ name, call: runnable.call })
}
const withWitnesses: number[] = []
for (const p of prepared) withWitnesses.push(await afterFullGc(p.call))
dropKeptShapes()
const rows: ArrangementRow[] = []
for (const [i, p] of prepared.entries()) {
  const without = await afterFullGc(p.call)
  rows.push({ arrangement: 'hidden-class witnesses (keepShape)', contender: p.name, keptNs: withWitnesses[i] as number, droppedNs: without })
}
const results: ArrangementResults = { machine: startMachine, batches: BATCHES, runsPerBatch: RUNS, rows }
writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`)
writeReport()
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`)
