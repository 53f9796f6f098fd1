/**
 * `npm run bench`: every contender on every scenario (time and heap per call), then the scaling and
 * memory checks; writes bench/results/bench.json and regenerates BENCHMARKS.md.
 *
 * Run with `node --expose-gc --max-semi-space-size=64 bench/run-bench.ts` (the npm script does).
 * Optional arguments: scenario ids to run (e.g. `a c`), `--quick` for short timings.
 */
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { CONTENDERS, isUnsupported } from './contenders/index.ts'
import { writeReport } from './report.ts'
import { PAYLOADS, SCENARIOS, type Scenario } from './scenarios.ts'
import { bytesPerRetry, retryAssembly, soak } from './scaling.ts'
import { machine } from './support/machine.ts'
import { canMeasureHeap, heapPerCall, timeCall, type TimeStats } from './support/measure.ts'

/** One cell of the results table. */
export interface BenchRow {
  readonly contender: string
  readonly status: 'ok' | 'unsupported' | 'error'
  readonly note?: string
  readonly reason?: string
  readonly time?: TimeStats
  readonly heapBytesPerCall?: number
}

export interface ScenarioResult {
  readonly id: Scenario['id']
  readonly title: string
  readonly rows: readonly BenchRow[]
}

const args = process.argv.slice(2)
const quick = args.includes('--quick')
const only = args.filter((a) => !a.startsWith('--'))
const RESULTS = path.resolve(import.meta.dirname, 'results/bench.json')

function expectedValue(scenario: Scenario): unknown {
  return JSON.parse(scenario.id === 'd' ? PAYLOADS.goodToolArgs : PAYLOADS.valid)
}

// Other work on a shared machine skews single timings; interleaved rounds, best median kept.
const ROUNDS = 3

async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const rows: BenchRow[] = []
  const ready: { index: number; name: string; call: () => Promise<unknown>; note: string | undefined }[] = []
  for (const contender of CONTENDERS) {
    const prepared = await contender.prepare(scenario)
    if (isUnsupported(prepared)) {
      rows.push({ contender: contender.name, status: 'unsupported', reason: prepared.unsupported })
      continue
    }
    // Sanity check: every contender must end with the same accepted value.
    let value: unknown
    try {
      value = await prepared.call()
    } catch (error) {
      rows.push({ contender: contender.name, status: 'error', reason: `threw: ${(error as Error).message}` })
      continue
    }
    if (!isDeepStrictEqual(value, expectedValue(scenario))) {
      rows.push({ contender: contender.name, status: 'error', reason: `wrong value: ${JSON.stringify(value)}` })
      continue
    }
    ready.push({ index: rows.length, name: contender.name, call: prepared.call, note: prepared.note })
    rows.push({ contender: contender.name, status: 'ok' })
  }
  const best = new Map<string, TimeStats>()
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of ready) {
      const time = await timeCall(c.call, quick ? 60 : 200)
      const known = best.get(c.name)
      if (known === undefined || time.medianNs < known.medianNs) best.set(c.name, time)
    }
  }
  for (const c of ready) {
    const time = best.get(c.name) as TimeStats
    const heap = await heapPerCall(c.call, 100, quick ? 8 : 25)
    rows[c.index] = {
      contender: c.name,
      status: 'ok',
      ...(c.note !== undefined ? { note: c.note } : {}),
      time,
      ...(heap !== undefined ? { heapBytesPerCall: heap } : {}),
    }
    process.stdout.write(`  ${scenario.id} ${c.name}: ${(time.medianNs / 1000).toFixed(2)} us, ${heap === undefined ? '?' : Math.round(heap)} B\n`)
  }
  return { id: scenario.id, title: scenario.title, rows }
}

async function main(): Promise<void> {
  if (!canMeasureHeap) console.log('note: run with --expose-gc to measure heap per call')
  // instructor-js logs every retry with console.warn; printing would measure the terminal.
  const { warn, error } = console
  console.warn = () => {}
  console.error = () => {}
  const scenarios: ScenarioResult[] = []
  try {
    for (const scenario of SCENARIOS) {
      if (only.length > 0 && !only.includes(scenario.id)) continue
      console.log(scenario.title)
      scenarios.push(await runScenario(scenario))
    }
  } finally {
    console.warn = warn
    console.error = error
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
