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

/**
 * Parses `view <file> [--html <out> | --port <n>]` strictly: an unknown flag, a flag without its
 * value (or given twice), a second file, `--html` with `--port` or a port that is not an integer
 * from 0 to 65535 is a usage error. `--flag=value` is accepted too.
 */
export function parseCliArgs(args: readonly string[]): CliArgs {
  if (args.some((a) => a === '--help' || a === '-h')) return { kind: 'help' }
  const [command, ...rest] = args
  if (command === undefined) return usage('missing command')
  if (command !== 'view') return usage(`unknown command ${JSON.stringify(command)}`)
  let file: string | undefined
  const flags = new Map<string, string>()
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string
    if (!arg.startsWith('-') || arg === '-') {
      if (file !== undefined) return usage(`unexpected argument ${JSON.stringify(arg)} (one trace file at a time)`)
      file = arg
      continue
    }
    const eq = arg.indexOf('=')
    const name = eq < 0 ? arg : arg.slice(0, eq)
    if (name !== '--html' && name !== '--port') return usage(`unknown option ${JSON.stringify(name)}`)
    if (flags.has(name)) return usage(`${name} is given twice`)
    const value = eq < 0 ? rest[++i] : arg.slice(eq + 1)
    if (value === undefined || value === '' || (eq < 0 && value.startsWith('-'))) return usage(`${name} needs a value`)
    flags.set(name, value)
  }
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
