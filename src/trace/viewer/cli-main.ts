import { readFile, writeFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { messageOf } from '../../model/message-of.ts'
import { notAFile } from '../not-a-file.ts'
import { sameFile } from '../same-file.ts'
import { replayMain } from '../replay/replay-main.ts'
import { parseCliArgs, USAGE } from './cli-args.ts'
import { serveTrace } from './serve-trace.ts'
import { readTrace } from './parse-trace.ts'
import { skippedReport } from './skipped-report.ts'
import type { SkippedLine } from './parse-trace.ts'
import { traceView } from './trace-page.ts'

/** Where the command writes: stdout and stderr by default. */
export interface CliIo {
  readonly out: (line: string) => void
  readonly err: (line: string) => void
}

const CONSOLE: CliIo = { out: (line) => console.log(line), err: (line) => console.error(line) }

/**
 * The `reliability-gate` command: `view` a recorded trace, or `replay` it under another
 * configuration (see `replayMain`). Returns the exit code: 0, 1 when the trace cannot be read or the
 * page cannot be written, 2 on a usage error (printed on stderr with the usage; nothing is served).
 */
export async function main(args: readonly string[], io: CliIo = CONSOLE): Promise<number> {
  if (args[0] === 'replay') return replayMain(args.slice(1), io)
  const parsed = parseCliArgs(args)
  if (parsed.kind === 'help') {
    io.out(USAGE)
    return 0
  }
  if (parsed.kind === 'usage') {
    io.err(`reliability-gate: ${parsed.problem}\n\n${USAGE}`)
    return 2
  }
  const { file, html, port } = parsed
  const problem = await fileProblem(file)
  if (problem !== undefined) {
    io.err(`reliability-gate: ${problem}\n\n${USAGE}`)
    return 2
  }
  if (html !== undefined) {
    if (await sameFile(html, file)) {
      io.err(`reliability-gate: --html would overwrite the trace ${JSON.stringify(file)}\n\n${USAGE}`)
      return 2
    }
    try {
      const view = traceView(await readFile(file, 'utf8'), basename(file))
      await writeFile(html, view.html)
      reportSkipped(io, file, view.skipped)
    } catch (error) {
      io.err(`reliability-gate: cannot write ${html}: ${messageOf(error)}`)
      return 1
    }
    io.out(`wrote ${html}`)
    return 0
  }
  // The page is read again on each request; the terminal names what the file holds now.
  try {
    reportSkipped(io, file, readTrace(await readFile(file, 'utf8')).skipped)
  } catch {
    // An unreadable file is the server's to report, on the page.
  }
  const server = await serveTrace(file, port === undefined ? {} : { port }).catch((error: unknown) => error as Error)
  if (server instanceof Error) {
    io.err(`reliability-gate: cannot serve ${file}: ${messageOf(server)}`)
    return 1
  }
  io.out(`reliability-gate trace viewer: ${server.url}  (${file}; Ctrl-C to stop)`)
  await new Promise<void>((resolve) => process.once('SIGINT', resolve).once('SIGTERM', resolve))
  await server.close()
  return 0
}

// Checked before anything is served: a missing file, a directory or a device is a usage error, never a server.
async function fileProblem(file: string): Promise<string | undefined> {
  const problem = await notAFile(file)
  if (problem === undefined) return undefined
  return problem === 'not a file' ? `${JSON.stringify(file)} is not a file` : `cannot read ${JSON.stringify(file)}: ${problem}`
}

function reportSkipped(io: CliIo, file: string, skipped: readonly SkippedLine[]): void {
  const report = skippedReport(file, skipped)
  if (report !== undefined) io.err(report)
}
