import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'

/** Reads the regular files of a .tar.gz into memory (ustar headers; enough for the corpora). */
export function readTarGz(file: string): Map<string, Buffer> {
  const tar = gunzipSync(readFileSync(file))
  const files = new Map<string, Buffer>()
  let at = 0
  while (at + 512 <= tar.length) {
    const header = tar.subarray(at, at + 512)
    if (header.every((b) => b === 0)) break
    const field = (from: number, len: number) =>
      header
        .subarray(from, from + len)
        .toString('utf8')
        .replace(/\0.*$/s, '')
    const name = field(0, 100)
    const prefix = field(345, 155)
    const size = Number.parseInt(field(124, 12).trim() || '0', 8)
    const type = field(156, 1)
    at += 512
    if (type === '0' || type === '') files.set(prefix === '' ? name : `${prefix}/${name}`, tar.subarray(at, at + size))
    at += Math.ceil(size / 512) * 512
  }
  return files
}
