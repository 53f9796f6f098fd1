// The JavaScript runtimes the smoke test runs on besides the project's Node 24, installed from npm
// into a cache folder when the smoke test runs, not by `npm ci`: a contributor's install for the demo
// and the tests stays free of runtimes it never starts (Bun, Deno and workerd are ~450 MB installed).
// Pinned: the smoke test's result must not change with a runtime's release.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/** Each cached runtime: its npm package, pinned version and the binary it puts in `.bin`. */
export const PINNED_RUNTIMES = Object.freeze({
  bun: '1.4.5',
  deno: '2.9.6',
  workerd: '1.20261117.1',
})

/** True when every pinned runtime is installed in `cache` at its pinned version. */
function installed(cache) {
  return Object.entries(PINNED_RUNTIMES).every(([name, version]) => {
    const manifest = path.join(cache, 'node_modules', name, 'package.json')
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === version
  })
}

function npmInstall(cache) {
  const specs = Object.entries(PINNED_RUNTIMES).map(([name, version]) => `${name}@${version}`)
  // --prefix with its own package.json: the project's manifest and lockfile stay untouched.
  const args = ['install', '--prefix', cache, '--no-audit', '--no-fund', '--no-package-lock', ...specs]
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { stdio: ['ignore', 'inherit', 'inherit'] })
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`npm ${args.join(' ')} exited with ${code}`))))
  })
}

/**
 * Installs the pinned runtimes into `cache` (`.cache/runtimes` under the project) unless they are
 * there already, and returns the path of each one's binary.
 */
export async function installRuntimes(cache) {
  if (!installed(cache)) {
    mkdirSync(cache, { recursive: true })
    const manifest = path.join(cache, 'package.json')
    if (!existsSync(manifest)) writeFileSync(manifest, `${JSON.stringify({ name: 'runtime-cache', private: true }, null, 2)}\n`)
    console.log(`installing ${Object.keys(PINNED_RUNTIMES).join(', ')} into ${path.relative(process.cwd(), cache) || cache}`)
    await npmInstall(cache)
  }
  const bin = (name) => path.join(cache, 'node_modules/.bin', name)
  return { bun: bin('bun'), deno: bin('deno'), workerd: bin('workerd') }
}
