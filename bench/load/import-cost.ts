import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { DIST_INDEX, ROOT } from '../support/build.ts'
import { median } from '../support/measure.ts'
import { classify, type LoadedModules } from './modules.ts'

const PROBE = path.resolve(import.meta.dirname, 'probe.ts')

/** The two main entries compared: the built package and the AI SDK's `ai`. */
export const ENTRIES = {
  'reliability-gate': pathToFileURL(DIST_INDEX).href,
  ai: import.meta.resolve('ai'),
} as const

type EntryName = keyof typeof ENTRIES

function probe(args: readonly string[]): { report: Record<string, unknown>; wallMs: number } {
  const start = performance.now()
  const child = spawnSync(process.execPath, [PROBE, ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 << 20, timeout: 60_000 })
  const wallMs = performance.now() - start
  const line = child.stdout.trim().split('\n').at(-1) ?? ''
  try {
    return { report: JSON.parse(line) as Record<string, unknown>, wallMs }
  } catch {
    throw new Error(`load probe ${args.join(' ')} failed (exit ${child.status}): ${child.stderr.trim()}`)
  }
}

/** Cold import of one main entry: medians over fresh processes. */
export interface ImportTime {
  /** Median time inside `await import(entry)`, ms. */
  readonly importMs: number
  /** Median wall time of the whole process (Node start, import, exit), ms. */
  readonly processMs: number
  readonly runs: number
}

export interface ImportCost {
  readonly times: Readonly<Record<EntryName, ImportTime>>
  /** reliability-gate's median import time over `ai`'s. */
  readonly ratio: number
  readonly modules: Readonly<Record<EntryName, LoadedModules>>
  /** Files loaded by importing the main entry, then by a first gate run, per schema kind. */
  readonly firstRun: Readonly<Record<'typebox' | 'zod', { readonly onImport: LoadedModules; readonly afterRun: LoadedModules }>>
}

/**
 * Times `await import(entry)` for both main entries, each in a fresh `node` process, interleaved,
 * `runs` times each (median), and lists the files each import loads.
 */
export function importCost(runs = 10): ImportCost {
  const samples: Record<EntryName, { importMs: number[]; processMs: number[] }> = {
    'reliability-gate': { importMs: [], processMs: [] },
    ai: { importMs: [], processMs: [] },
  }
  const names = Object.keys(ENTRIES) as EntryName[]
  for (let i = 0; i < runs; i++) {
    // Alternate which goes first, so neither always runs right after the other.
    for (const name of i % 2 === 0 ? names : [...names].reverse()) {
      const { report, wallMs } = probe(['time', ENTRIES[name]])
      samples[name].importMs.push(report.ms as number)
      samples[name].processMs.push(wallMs)
    }
  }
  const times = Object.fromEntries(
    names.map((name) => [name, { importMs: median(samples[name].importMs) ?? NaN, processMs: median(samples[name].processMs) ?? NaN, runs }]),
  ) as Record<EntryName, ImportTime>
  const modules = Object.fromEntries(names.map((name) => [name, classify(probe(['files', ENTRIES[name]]).report.files as string[])])) as Record<
    EntryName,
    LoadedModules
  >
  const firstRun = (kind: 'typebox' | 'zod') => {
    const { report } = probe(['first-run', ENTRIES['reliability-gate'], kind])
    return { onImport: classify(report.onImport as string[]), afterRun: classify(report.afterRun as string[]) }
  }
  return {
    times,
    ratio: times['reliability-gate'].importMs / times.ai.importMs,
    modules,
    firstRun: { typebox: firstRun('typebox'), zod: firstRun('zod') },
  }
}
