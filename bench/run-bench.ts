/**
 * `npm run bench`: every contender on every scenario (time and heap per call), then the scaling and
 * memory checks; writes bench/results/bench.json and regenerates BENCHMARKS.md.
 *
 * Run with `node --expose-gc --max-semi-space-size=64 bench/run-bench.ts` (the npm script does).
 * Optional arguments: scenario ids to run (e.g. `a c`), `--quick` for short timings.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { CONTENDERS } from './contenders/index.ts'
import type { ChildReport } from './measure-one.ts'
import { writeReport } from './report.ts'
import { SCENARIOS, type Scenario } from './scenarios.ts'
import { bytesPerRetry, retryAssembly, soak } from './scaling.ts'
import { machine } from './support/machine.ts'
import type { BenchRow } from './support/bench-row.ts'
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

// Other work on a shared machine skews single timings: interleaved rounds, best median kept. Every
// measurement runs in its own process (bench/measure-one.ts), for every contender alike.
const ROUNDS = 3
const CHILD = path.resolve(import.meta.dirname, 'measure-one.ts')

/** Measures one contender on one scenario in a fresh process with this process's V8 flags. */
function measureInChild(scenario: Scenario, name: string, heap: boolean): ChildReport {
  const args = [...process.execArgv, CHILD, scenario.id, name, String(quick ? 60 : 200), heap ? '1' : '0']
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20, timeout: 120_000 })
  const line = child.stdout.trim().split('\n').at(-1) ?? ''
  try {
    return JSON.parse(line) as ChildReport
  } catch {
    return { status: 'error', reason: `measurement process failed (exit ${child.status}): ${child.stderr.trim().split('\n').at(-1) ?? ''}` }
  }
}

async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const reports = new Map<string, ChildReport>()
  for (let round = 0; round < ROUNDS; round++) {
    for (const contender of CONTENDERS) {
      const known = reports.get(contender.name)
      if (known !== undefined && known.status !== 'ok') continue
      const report = measureInChild(scenario, contender.name, round === 0 && canMeasureHeap)
      if (known === undefined || (report.status === 'ok' && known.status === 'ok' && report.time.medianNs < known.time.medianNs)) {
        // Keep the heap figure of the first round; it does not depend on load.
        const heap = known?.status === 'ok' ? known.heapBytesPerCall : undefined
        reports.set(contender.name, report.status === 'ok' && heap !== undefined ? { ...report, heapBytesPerCall: heap } : report)
      }
    }
  }
  const rows: BenchRow[] = CONTENDERS.map((contender) => {
    const report = reports.get(contender.name) as ChildReport
    if (report.status !== 'ok') return { contender: contender.name, status: report.status, reason: report.reason }
    const { time, heapBytesPerCall: heap } = report
    process.stdout.write(`  ${scenario.id} ${contender.name}: ${(time.medianNs / 1000).toFixed(2)} us, ${heap === undefined ? '?' : Math.round(heap)} B\n`)
    return {
      contender: contender.name,
      status: 'ok',
      ...(report.note !== undefined ? { note: report.note } : {}),
      time,
      ...(heap !== undefined ? { heapBytesPerCall: heap } : {}),
    }
  })
  return { id: scenario.id, title: scenario.title, rows }
}

async function main(): Promise<void> {
  if (!canMeasureHeap) console.log('note: run with --expose-gc to measure heap per call')
  const scenarios: ScenarioResult[] = []
  for (const scenario of SCENARIOS) {
    if (only.length > 0 && !only.includes(scenario.id)) continue
    console.log(scenario.title)
    scenarios.push(await runScenario(scenario))
  }
  console.log('scaling and memory')
  const assembly = await retryAssembly()
  const bytes = await bytesPerRetry()
  const memory = await soak(quick ? 10_000 : 100_000)
  const results = {
    machine: machine(),
    flags: process.execArgv,
    scenarios,
    scaling: { retryAssembly: assembly, bytesPerRetry: bytes, soak: memory },
  }
  writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`)
  writeReport()
  console.log(`wrote ${path.relative(process.cwd(), RESULTS)} and BENCHMARKS.md`)
}

await main()
