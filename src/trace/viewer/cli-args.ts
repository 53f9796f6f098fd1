import { unknownOption } from '../../model/known-options.ts'
import { parseFlags } from '../cli-flags.ts'

/** The command's usage text. */
export const USAGE = `usage: reliability-gate view <trace.jsonl> [--html <out.html> | --port <n>]
       reliability-gate replay <trace.jsonl> --config <module>   (reliability-gate replay --help)

  view <trace.jsonl>   serve the trace viewer on http://127.0.0.1 (Ctrl-C to stop)
  --html <out.html>    write the viewer as one self-contained HTML file instead
  --port <n>           port to serve on, 0 to 65535 (default: any free port)
  -h, --help           print this help`

/** What the command line asks for: help, a usage error, or a trace to view. */
export type CliArgs =
  | { readonly kind: 'help' }
  | { readonly kind: 'usage'; readonly problem: string }
  | { readonly kind: 'view'; readonly file: string; readonly html: string | undefined; readonly port: number | undefined }

const usage = (problem: string): CliArgs => ({ kind: 'usage', problem })

const FLAGS = { valued: ['--html', '--port'], switches: [] } as const

/**
 * Parses `view <file> [--html <out> | --port <n>]` strictly: an unknown flag, a flag without its
 * value (or given twice), a second file, `--html` with `--port` or a port that is not an integer
 * from 0 to 65535 is a usage error (the flag loop is {@link parseFlags}'s: an unknown flag gets a "did you
 * mean"). `--flag=value` is accepted too.
 */
export function parseCliArgs(args: readonly string[]): CliArgs {
  if (args.some((a) => a === '--help' || a === '-h')) return { kind: 'help' }
  const [command, ...rest] = args
  if (command === undefined) return usage('missing command')
  if (command !== 'view') return usage(unknownCommand(command))
  const parsed = parseFlags(rest, FLAGS)
  if (!parsed.ok) return usage(parsed.problem)
  const { file, flags } = parsed
  if (file === undefined || file === '') return usage('missing the trace file to view')
  const html = flags.get('--html')
  const portText = flags.get('--port')
  if (html !== undefined && portText !== undefined) return usage('--html writes a file and --port serves a page: give one of them')
  let port: number | undefined
  if (portText !== undefined) {
    port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN
    if (!(port >= 0 && port <= 65535)) return usage(`--port must be an integer from 0 to 65535, got ${JSON.stringify(portText)}`)
  }
  return { kind: 'view', file, html, port }
}

/** The commands of `reliability-gate` (`replay` is dispatched before this parser). */
const COMMANDS = ['view', 'replay']

/** An unknown command, with the command it is closest to ("did you mean"), bounded as an option's name is. */
function unknownCommand(command: string): string {
  const problem = unknownOption({ [command]: true }, COMMANDS) ?? `unknown command ${JSON.stringify(command)}`
  return problem.replace('unknown option', 'unknown command').replace('the options are', 'the commands are')
}
