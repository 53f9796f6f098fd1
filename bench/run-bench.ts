/**
 * `npm run bench`: every contender on every scenario (time and heap per call), the scaling and
 * memory checks, then load and install cost (cold import against `ai`, install size, bundle size),
 * then what a fleet's Redis costs per attempt (`npm run bench:redis`, when `redis-server` is installed;
 * skipped with one line otherwise); writes bench/results/bench.json (and redis.json) and regenerates
 * BENCHMARKS.md.
 *
 * Run with `node --expose-gc --min-semi-space-size=64 --max-semi-space-size=64 bench/run-bench.ts` (the npm script does).
 * Optional arguments: scenario ids to run (e.g. `a c`), `--quick` for short timings.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { CONTENDERS } from './contenders/index.ts'
import { bundleSizes } from './bundle-size.ts'
import { installSizes } from './install-size.ts'
import { hasRedisServer, redisBench } from './redis-bench.ts'
import { importCost } from './load/import-cost.ts'
import { writeReport } from './report.ts'
import { SCENARIOS, type Scenario } from './scenarios.ts'
import { bytesPerRetry, retryAssembly, soak } from './scaling.ts'
import { machine } from './support/machine.ts'
import type { BenchRow } from './support/bench-row.ts'
import { ensureBuilt } from './support/build.ts'
import { bestOfRounds, toRow } from './support/child.ts'
import { canMeasureHeap } from './support/measure.ts'

export interface ScenarioResult {
  readonly id: Scenario['id']
  readonly title: string
  readonly rows: readonly BenchRow[]
}

const args = process.argv.slice(2)
const quick = args.includes('--quick')
const only = args.filter((a) => !a.startsWith('--'))
const RESULTS = path.resolve(import.meta.dirname, 'results/bench.json')

function runScenario(scenario: Scenario): ScenarioResult {
  // Every measurement runs in its own process (bench/measure-one.ts), for every contender alike.
  const reports = bestOfRounds(scenario, CONTENDERS, { rounds: 3, minCpuMs: quick ? 60 : 200, heap: canMeasureHeap })
  const rows = CONTENDERS.map((contender) => {
    const row = toRow(contender.name, reports.get(contender.name))
    if (row.time !== undefined) {
      const heap = row.heapBytesPerCall
      process.stdout.write(
        `  ${scenario.id} ${contender.name}: ${(row.time.medianNs / 1000).toFixed(2)} us, ${heap === undefined ? '?' : Math.round(heap)} B\n`,
      )
    }
    return row
  })
  return { id: scenario.id, title: scenario.title, rows }
}

async function main(): Promise<void> {
  if (!canMeasureHeap) console.log('note: run with --expose-gc to measure heap per call')
  const startMachine = machine()
  // Build first: a build running later would compete with the timings.
  ensureBuilt()
  const scenarios: ScenarioResult[] = []
  for (const scenario of SCENARIOS) {
    if (only.length > 0 && !only.includes(scenario.id)) continue
    console.log(scenario.title)
    scenarios.push(runScenario(scenario))
  }
  console.log('scaling and memory')
  const assembly = await retryAssembly()
  const bytes = await bytesPerRetry()
  const memory = await soak(quick ? 10_000 : 100_000)
  console.log('load and install cost')
  const load = { importCost: importCost(10), install: installSizes(), bundles: await bundleSizes() }
  console.log(`  import: ${load.importCost.ratio.toFixed(2)}x ai; install ${(load.install.gate.totalBytes / 2 ** 20).toFixed(2)} MiB`)
  const results = {
    machine: startMachine,
    flags: process.execArgv,
    scenarios,
    scaling: { retryAssembly: assembly, bytesPerRetry: bytes, soak: memory },
    load,
  }
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`)
  console.log("a fleet's Redis per attempt")
  // After the timings above: its fleet of processes would compete with them.
  if (hasRedisServer()) await redisBench(quick)
  else console.log('  skipped: redis-server not on PATH (apt-get install redis-server); BENCHMARKS.md keeps the last bench/results/redis.json')
  writeReport()
  console.log(`wrote ${path.relative(process.cwd(), RESULTS)} and BENCHMARKS.md`)
}

await main()
