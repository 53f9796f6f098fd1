import { stat } from 'node:fs/promises'
import { messageOf } from '../model/message-of.ts'

/**
 * Why `path` cannot be read as a file, or `undefined` when it is one: missing, a directory, or a
 * device, FIFO or socket (`/dev/zero`, `/dev/stdin`), which a whole-file read would never finish
 * (or would block the process on). Checked before the CLI reads a trace or imports a module.
 */
export async function notAFile(path: string): Promise<string | undefined> {
  try {
    return (await stat(path)).isFile() ? undefined : 'not a file'
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : messageOf(error)
  }
}
