import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/**
 * The shared corpora beside the project (`../shared/corpora`, or the folder `RG_CORPORA_DIR` names).
 * They are read in place or unpacked into a temporary folder, never copied into the project.
 */
export const CORPORA = path.resolve(process.env['RG_CORPORA_DIR'] || path.resolve(import.meta.dirname, '../../../shared/corpora'))

const unpacked = new Map<string, string>()

/** Unpacks a `.tar.gz` of the corpora into a temporary folder (once per process) and returns it. */
export function untar(relativeArchive: string): string {
  const known = unpacked.get(relativeArchive)
  if (known !== undefined) return known
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rg-corpus-'))
  execFileSync('tar', ['xzf', path.join(CORPORA, relativeArchive), '-C', dir])
  unpacked.set(relativeArchive, dir)
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Removes every folder {@link untar} made (also done at exit). */
export function cleanupCorpora(): void {
  for (const dir of unpacked.values()) rmSync(dir, { recursive: true, force: true })
  unpacked.clear()
}
