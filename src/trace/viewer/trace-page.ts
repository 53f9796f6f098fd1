import { assertString } from '../../model/argument-checks.ts'
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { buildRuns, readTrace } from './build-runs.ts'
import type { SkippedLine } from './parse-trace.ts'
import { renderHtml } from './render-html.ts'

/** The viewer page of a JSON Lines trace's text; the lines it could not use are listed on the page with their numbers. */
export function tracePage(text: string, title: string): string {
  assertString(text, 'tracePage: text')
  assertString(title, 'tracePage: title')
  return traceView(text, title).html
}

/** The viewer page of a trace's text, and the lines it skipped (for the terminal). */
export function traceView(text: string, title: string): { readonly html: string; readonly skipped: readonly SkippedLine[] } {
  const trace = readTrace(text)
  return { html: renderHtml(buildRuns(trace.records, trace.lines), title, trace.skipped), skipped: trace.skipped }
}

/** The viewer page of a trace file (read now: a page served again shows the runs recorded since). */
export async function tracePageOf(path: string): Promise<string> {
  return tracePage(await readFile(path, 'utf8'), basename(path))
}
