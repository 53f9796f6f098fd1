import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'

/**
 * Whether writing `output` would write over `input`: the same path, or, when both exist, the same
 * file reached another way (a symlink to it, a path through a symlinked folder, a hard link), told
 * by device and inode once symlinks are followed. Checked before the CLI writes a page beside a trace.
 */
export async function sameFile(output: string, input: string): Promise<boolean> {
  if (resolve(output) === resolve(input)) return true
  const [a, b] = await Promise.all([stat(output).catch(() => undefined), stat(input).catch(() => undefined)])
  return a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino
}
