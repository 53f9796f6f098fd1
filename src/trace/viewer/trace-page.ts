import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { buildRuns, parseTrace } from './build-runs.ts'
import { renderHtml } from './render-html.ts'

/** The viewer page of a JSON Lines trace's text. */
export function tracePage(text: string, title: string): string {
  return renderHtml(buildRuns(parseTrace(text)), title)
}

/** The viewer page of a trace file (read now: a page served again shows the runs recorded since). */
export async function tracePageOf(path: string): Promise<string> {
  return tracePage(await readFile(path, 'utf8'), basename(path))
}
