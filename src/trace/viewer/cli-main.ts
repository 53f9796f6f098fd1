import { writeFile } from 'node:fs/promises'
import { serveTrace } from './serve-trace.ts'
import { tracePageOf } from './trace-page.ts'

const USAGE = `usage: reliability-gate view <trace.jsonl> [--html <out.html>] [--port <n>]

  view <trace.jsonl>   serve the trace viewer on http://127.0.0.1 (Ctrl-C to stop)
  --html <out.html>    write the viewer as one self-contained HTML file instead
  --port <n>           port to serve on (default: any free port)`

/** The `reliability-gate` command: `view` a recorded trace. Returns the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  const [command, file, ...rest] = args
  if (command !== 'view' || file === undefined || file.startsWith('-')) {
    console.error(USAGE)
    return command === '--help' || command === '-h' ? 0 : 2
  }
  const html = option(rest, '--html')
  if (html !== undefined) {
    await writeFile(html, await tracePageOf(file))
    console.log(`wrote ${html}`)
    return 0
  }
  const port = option(rest, '--port')
  const server = await serveTrace(file, port === undefined ? {} : { port: Number(port) })
  console.log(`reliability-gate trace viewer: ${server.url}  (${file}; Ctrl-C to stop)`)
  await new Promise<void>((resolve) => process.once('SIGINT', resolve).once('SIGTERM', resolve))
  await server.close()
  return 0
}

function option(args: readonly string[], name: string): string | undefined {
  const at = args.indexOf(name)
  return at < 0 ? undefined : args[at + 1]
}
