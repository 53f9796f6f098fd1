import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const SCRIPT = path.join(ROOT, 'scripts/package-entries.mjs')
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>
const dir = mkdtempSync(path.join(tmpdir(), 'rg-export-map-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs the export-map check on a package.json holding `manifest`; resolves with its exit code and stderr. */
function check(manifest: unknown): Promise<{ code: number; stderr: string }> {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.json`)
  writeFileSync(file, JSON.stringify(manifest))
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, file], { timeout: 20_000 }, (error, _stdout, stderr) =>
      resolve({ code: error === null ? 0 : Number(error.code), stderr }),
    )
  })
}

describe('package.json exports', () => {
  it('gives every entry types, import and default, and maps every subpath in typesVersions', async () => {
    expect(await check(pkg)).toEqual({ code: 0, stderr: '' })
  })

  it('lets require() load the ESM build: default names the file import names', () => {
    for (const [subpath, target] of Object.entries(pkg.exports as Record<string, unknown>)) {
      if (typeof target === 'string') continue
      const { import: file, default: fallback } = target as { import: string; default: string }
      expect({ subpath, fallback }).toEqual({ subpath, fallback: file })
    }
  })

  it('reports an entry another change added with only types and import', async () => {
    const exports = { ...(pkg.exports as object), './future': { types: './dist/future/index.d.ts', import: './dist/future/index.js' } }
    const { code, stderr } = await check({ ...pkg, exports })
    expect(code).toBe(1)
    expect(stderr).toContain('exports "./future" is {"types":"./dist/future/index.d.ts","import":"./dist/future/index.js"}')
    expect(stderr).toContain('typesVersions["*"]["future"] is undefined, expected ["./dist/future/index.d.ts"]')
  })

  it('reports a typesVersions path that exports does not have', async () => {
    const typesVersions = { '*': { ...(pkg.typesVersions as { '*': object })['*'], gone: ['./dist/gone/index.d.ts'] } }
    const { code, stderr } = await check({ ...pkg, typesVersions })
    expect(code).toBe(1)
    expect(stderr.trim()).toBe('typesVersions["*"]["gone"] maps a subpath that exports does not have')
  })
})
