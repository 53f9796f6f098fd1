import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { buildRuns, readTrace } from './build-runs.ts'
import { renderHtml } from './render-html.ts'

/** The viewer page of a JSON Lines trace's text; the lines it could not use are listed on the page with their numbers. */
export function tracePage(text: string, title: string): string {
  const trace = readTrace(text)
  return renderHtml(buildRuns(trace.records, trace.lines), title, trace.skipped)
}

/** The viewer page of a trace file (read now: a page served again shows the runs recorded since). */
export async function tracePageOf(path: string): Promise<string> {
  return tracePage(await readFile(path, 'utf8'), basename(path))
}
