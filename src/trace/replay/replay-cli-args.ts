import { isNumber, parseFlags } from '../cli-flags.ts'

/** The usage text of `reliability-gate replay`. */
export const REPLAY_USAGE = `usage: reliability-gate replay <trace.jsonl> --config <module> [--json] [--html <out.html>] [--min-success <fraction>] [--max-cost-per-success <usd>] [--trials <k>]

  replay <trace.jsonl>            decide every recorded call again under another configuration, without calling a model
  --config <module>               a module whose default export is the gate configuration (or a function of the recorded call)
  --json                          print the report as JSON instead of a table
  --html <out.html>               also write the trace viewer's page with each changed call's replay beside its original
  --min-success <fraction>        exit 1 when the replayed success rate is below it (0 to 1)
  --max-cost-per-success <usd>    exit 1 when the replayed cost per success is above it
  --trials <k>                    instead of replaying, run every recorded case k times on the providers the module's
                                  trialProviders(trial, call) export gives (scripted or simulated, seeded by trial):
                                  pass^k, pass@k and attempts to success per case (--min-success: success per trial)
  -h, --help                      print this help

exit codes: 0 done, 1 a threshold crossed, 2 usage error (an unknown flag, no trace, a configuration refused)`

/** What `reliability-gate replay ...` asks for. */
export type ReplayArgs =
  | { readonly kind: 'help' }
  | { readonly kind: 'usage'; readonly problem: string }
  | {
      readonly kind: 'replay'
      readonly file: string
      readonly config: string
      readonly json: boolean
      readonly minSuccess: number | undefined
      readonly maxCostPerSuccess: number | undefined
      readonly trials: number | undefined
      readonly html: string | undefined
    }

/** Flags that take a value, and those that do not. */
const FLAGS = { valued: ['--config', '--min-success', '--max-cost-per-success', '--trials', '--html'], switches: ['--json'] } as const

const usage = (problem: string): ReplayArgs => ({ kind: 'usage', problem })

/**
 * Parses the arguments after `replay` strictly (the flag loop is {@link parseFlags}'s): an unknown
 * flag is refused with the flag it is closest to ("did you mean"), a flag without its value or given
 * twice, a second trace file, a fraction outside 0..1 or a cost that is no finite non-negative number
 * is a usage error. `--flag=value` is accepted too.
 */
export function parseReplayArgs(args: readonly string[]): ReplayArgs {
  if (args.some((a) => a === '--help' || a === '-h')) return { kind: 'help' }
  const parsed = parseFlags(args, FLAGS)
  if (!parsed.ok) return usage(parsed.problem)
  const { file, flags } = parsed
  if (file === undefined || file === '') return usage('missing the trace file to replay')
  const config = flags.get('--config')
  if (config === undefined) return usage('missing --config <module>: the configuration to replay under')
  const minText = flags.get('--min-success')
  const minSuccess = minText === undefined ? undefined : Number(minText)
  if (minSuccess !== undefined && !(isNumber(minText as string) && minSuccess >= 0 && minSuccess <= 1)) {
    return usage(`--min-success must be a fraction from 0 to 1, got ${JSON.stringify(minText)}`)
  }
  const costText = flags.get('--max-cost-per-success')
  const maxCostPerSuccess = costText === undefined ? undefined : Number(costText)
  if (maxCostPerSuccess !== undefined && !(isNumber(costText as string) && maxCostPerSuccess >= 0)) {
    return usage(`--max-cost-per-success must be a non-negative number of USD, got ${JSON.stringify(costText)}`)
  }
  const trialsText = flags.get('--trials')
  const trials = trialsText === undefined ? undefined : Number(trialsText)
  if (trials !== undefined && !(/^\d+$/.test(trialsText as string) && trials >= 1 && trials <= 10_000)) {
    return usage(`--trials must be a whole number from 1 to 10000, got ${JSON.stringify(trialsText)}`)
  }
  if (trials !== undefined && maxCostPerSuccess !== undefined) return usage('--max-cost-per-success applies to a replay, not to --trials')
  const html = flags.get('--html')
  if (html !== undefined && trials !== undefined) return usage('--html shows a replay, not --trials')
  return { kind: 'replay', file, config, json: flags.has('--json'), minSuccess, maxCostPerSuccess, trials, html }
}
