import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

/** The repository root. */
export const ROOT = path.resolve(import.meta.dirname, '../..')
/** The built main entry, what users import. */
export const DIST_INDEX = path.join(ROOT, 'dist/index.js')

function newestMtime(file: string): number {
  const stat = statSync(file)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of readdirSync(file)) newest = Math.max(newest, newestMtime(path.join(file, entry)))
  return newest
}

/**
 * Runs `npm run build` when `dist/` is missing or older than anything in `src/`, `package.json` or
 * `tsup.config.ts`, so load, install and bundle figures are always of the current sources.
 */
export function ensureBuilt(): void {
  const sources = Math.max(newestMtime(path.join(ROOT, 'src')), newestMtime(path.join(ROOT, 'package.json')), newestMtime(path.join(ROOT, 'tsup.config.ts')))
  if (existsSync(DIST_INDEX) && statSync(DIST_INDEX).mtimeMs >= sources) return
  console.log('  dist/ is missing or stale: npm run build')
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 << 20 })
  if (build.status !== 0) throw new Error(`npm run build failed (exit ${build.status}):\n${build.stdout}\n${build.stderr}`)
}
