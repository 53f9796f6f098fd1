import { readFile, writeFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { typeName } from '../../model/describe-value.ts'
import { isRecord } from '../../model/is-record.ts'
import { messageOf } from '../../model/message-of.ts'
import { notAFile } from '../not-a-file.ts'
import { sameFile } from '../same-file.ts'
import { readTrace } from '../viewer/parse-trace.ts'
import { skippedReport } from '../viewer/skipped-report.ts'
import { formatReplay, formatTrials } from './format-replay.ts'
import { parseReplayArgs, REPLAY_USAGE } from './replay-cli-args.ts'
import type { ReplayReport } from './replay-report.ts'
import { replayPage } from './replay-page.ts'
import { type ReplayTraceOptions, replayWithRecords } from './replay-trace.ts'
import { type RunTrialsOptions, runTrials, type TrialsReport } from './run-trials.ts'

/** Where the command writes. */
export interface ReplayIo {
  readonly out: (line: string) => void
  readonly err: (line: string) => void
}

/**
 * `reliability-gate replay <trace.jsonl> --config <module>`: replays the trace (see `replayTrace`)
 * and prints the report. Returns the exit code: 0, 1 when `--min-success` or
 * `--max-cost-per-success` is crossed, 2 on a usage error (an unknown flag, a trace that cannot be
 * read, a configuration module that cannot be loaded or that the gate refuses).
 */
export async function replayMain(args: readonly string[], io: ReplayIo): Promise<number> {
  const parsed = parseReplayArgs(args)
  if (parsed.kind === 'help') {
    io.out(REPLAY_USAGE)
    return 0
  }
  const fail = (problem: string): number => {
    io.err(`reliability-gate replay: ${problem}\n\n${REPLAY_USAGE}`)
    return 2
  }
  if (parsed.kind === 'usage') return fail(parsed.problem)
  const unreadable = await notAFile(parsed.file)
  if (unreadable !== undefined) return fail(`cannot read ${JSON.stringify(parsed.file)}: ${unreadable}`)
  let text: string
  try {
    text = await readFile(parsed.file, 'utf8')
  } catch (error) {
    return fail(`cannot read ${JSON.stringify(parsed.file)}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : messageOf(error)}`)
  }
  const loaded = await loadConfig(parsed.config)
  if (typeof loaded === 'string') return fail(loaded)
  const { config, trialProviders } = loaded
  const trace = readTrace(text)
  const skipped = skippedReport(parsed.file, trace.skipped)
  if (skipped !== undefined) io.err(skipped)
  if (parsed.trials !== undefined) {
    if (typeof trialProviders !== 'function') return fail(`--trials needs the module ${JSON.stringify(parsed.config)} to export trialProviders(trial, call)`)
    let trials: TrialsReport
    try {
      trials = await runTrials(trace.records, { config, trials: parsed.trials, providers: trialProviders as RunTrialsOptions['providers'] })
    } catch (error) {
      if (error instanceof TypeError || error instanceof RangeError) return fail(`the configuration is refused: ${messageOf(error)}`)
      io.err(`reliability-gate replay: ${messageOf(error)}`)
      return 1
    }
    io.out(parsed.json ? JSON.stringify(trials, null, 2) : formatTrials(trials))
    if (parsed.minSuccess !== undefined && trials.successRate < parsed.minSuccess) {
      io.err(`reliability-gate replay: success per trial ${trials.successRate.toFixed(4)} is below --min-success ${parsed.minSuccess}`)
      return 1
    }
    return 0
  }
  if (parsed.html !== undefined && (await sameFile(parsed.html, parsed.file))) return fail(`--html would overwrite the trace ${JSON.stringify(parsed.file)}`)
  let report: ReplayReport
  try {
    const replay = await replayWithRecords(trace.records, { config })
    report = replay.report
    if (parsed.html !== undefined) await writeFile(parsed.html, replayPage(text, parsed.file, replay))
  } catch (error) {
    if (error instanceof TypeError || error instanceof RangeError) return fail(`the configuration is refused: ${messageOf(error)}`)
    io.err(`reliability-gate replay: ${messageOf(error)}`)
    return 1
  }
  io.out(parsed.json ? JSON.stringify(report, null, 2) : formatReplay(report))
  const crossed = thresholdsCrossed(report, parsed.minSuccess, parsed.maxCostPerSuccess)
  for (const line of crossed) io.err(`reliability-gate replay: ${line}`)
  return crossed.length > 0 ? 1 : 0
}

/**
 * What the replay crossed: a success rate below `minSuccess`, a cost per success above
 * `maxCostPerSuccess` (no success at all is above any threshold). Measured over the calls the
 * replay decided (those that needed no model answer).
 */
export function thresholdsCrossed(report: ReplayReport, minSuccess: number | undefined, maxCostPerSuccess: number | undefined): string[] {
  const crossed: string[] = []
  const { after } = report
  if (minSuccess !== undefined && after.successRate < minSuccess) {
    crossed.push(`success rate ${after.successRate.toFixed(4)} (${after.succeeded}/${after.calls}) is below --min-success ${minSuccess}`)
  }
  if (maxCostPerSuccess !== undefined) {
    const cost = after.costPerSuccessUsd
    if (cost === null) crossed.push(`no call succeeded: cost per success is above --max-cost-per-success ${maxCostPerSuccess}`)
    else if (cost > maxCostPerSuccess) crossed.push(`cost per success $${cost} is above --max-cost-per-success ${maxCostPerSuccess}`)
  }
  return crossed
}

/** The configuration a module exports (`default`, else `config`) and its `trialProviders`, or why they cannot be had. */
async function loadConfig(path: string): Promise<{ readonly config: ReplayTraceOptions['config']; readonly trialProviders: unknown } | string> {
  // A directory or a device (`/dev/zero`) is refused before the loader reads it: it would block the process for good.
  const unreadable = await notAFile(resolve(path))
  if (unreadable !== undefined) return `cannot load the configuration module ${JSON.stringify(path)}: ${unreadable}`
  let module: Record<string, unknown>
  try {
    module = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>
  } catch (error) {
    return `cannot load the configuration module ${JSON.stringify(path)}: ${messageOf(error)}`
  }
  const config = module.default ?? module.config
  if (isRecord(config) || typeof config === 'function') return { config: config as ReplayTraceOptions['config'], trialProviders: module.trialProviders }
  return `the configuration module ${JSON.stringify(path)} must export (as default, or as config) a gate configuration or a function of the recorded call, got ${typeName(config)}`
}
