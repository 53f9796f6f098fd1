import { spawnSync } from 'node:child_process'
import path from 'node:path'
import type { ContenderEntry } from '../contenders/index.ts'
import type { ChildReport } from '../measure-one.ts'
import type { Scenario } from '../scenarios.ts'
import type { BenchRow } from './bench-row.ts'

const CHILD = path.resolve(import.meta.dirname, '../measure-one.ts')

/** Measures one contender on one scenario in a fresh process with this process's V8 flags. */
export function measureInChild(scenario: Scenario, name: string, minCpuMs: number, heap: boolean): ChildReport {
  const args = [...process.execArgv, CHILD, scenario.id, name, String(minCpuMs), heap ? '1' : '0']
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20, timeout: 120_000 })
  const line = child.stdout.trim().split('\n').at(-1) ?? ''
  try {
    return JSON.parse(line) as ChildReport
  } catch {
    return { status: 'error', reason: `measurement process failed (exit ${child.status}): ${child.stderr.trim().split('\n').at(-1) ?? ''}` }
  }
}

/**
 * Other work on a shared machine skews single timings: every contender is measured once per round,
 * rounds interleaved, and its best median kept. The heap figure comes from the first round (it does
 * not depend on load); a contender that fails or is unsupported is not measured again.
 */
export function bestOfRounds(
  scenario: Scenario,
  contenders: readonly ContenderEntry[],
  options: { readonly rounds: number; readonly minCpuMs: number; readonly heap: boolean },
): Map<string, ChildReport> {
  const reports = new Map<string, ChildReport>()
  for (let round = 0; round < options.rounds; round++) {
    for (const contender of contenders) {
      const known = reports.get(contender.name)
      if (known !== undefined && known.status !== 'ok') continue
      const report = measureInChild(scenario, contender.name, options.minCpuMs, round === 0 && options.heap)
      if (known === undefined || (report.status === 'ok' && known.status === 'ok' && report.time.medianNs < known.time.medianNs)) {
        const heap = known?.status === 'ok' ? known.heapBytesPerCall : undefined
        reports.set(contender.name, report.status === 'ok' && heap !== undefined ? { ...report, heapBytesPerCall: heap } : report)
      }
    }
  }
  return reports
}

/** A child's report as a row of the results table. */
export function toRow(contender: string, report: ChildReport | undefined): BenchRow {
  if (report === undefined) return { contender, status: 'error', reason: 'not measured' }
  if (report.status !== 'ok') return { contender, status: report.status, reason: report.reason }
  return {
    contender,
    status: 'ok',
    ...(report.note !== undefined ? { note: report.note } : {}),
    time: report.time,
    ...(report.heapBytesPerCall !== undefined ? { heapBytesPerCall: report.heapBytesPerCall } : {}),
  }
}
