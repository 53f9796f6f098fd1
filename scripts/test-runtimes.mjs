// `npm run test:runtimes` (after `npm run build`; CI runs it after `npm test`): the runtime smoke
// test (scripts/runtimes/smoke.mjs) on every runtime the core supports, all from npm: Node 24 (the
// `node` devDependency), Node 22 (`npx --yes node@22`), Bun, Deno and Cloudflare's workerd (pinned,
// installed into .cache/runtimes on the first run by scripts/runtimes/install-runtimes.mjs, not by
// `npm ci`). workerd runs what a Worker would deploy: the smoke test bundled by esbuild, as its
// `test` handler (`workerd test`). Then, on Node 24 and Node 22, a CommonJS file requires the packed
// package and every subpath by name (scripts/runtimes/require-all.cjs). One line per check, then
// the total; exit code 1 when any fails.
import { execFileSync, spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { installRuntimes } from './runtimes/install-runtimes.mjs'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const MAIN = path.join(ROOT, 'scripts/runtimes/main.mjs')
const WORKER = path.join(ROOT, 'scripts/runtimes/worker.mjs')
const REQUIRE_ALL = path.join(ROOT, 'scripts/runtimes/require-all.cjs')
const TIMEOUT_MS = 90_000
const bin = (name) => path.join(ROOT, 'node_modules/.bin', name)

// The compatibility date a new Worker would get today; no `nodejs_compat`: the core needs none.
const WORKERD_CONFIG = `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "smoke", worker = .smokeWorker)],
);

const smokeWorker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2025-09-01",
);
`

/** Bundles the smoke test as a Worker (as wrangler would) and writes the workerd config beside it. */
async function prepareWorker(dir) {
  await build({
    entryPoints: [WORKER],
    outfile: path.join(dir, 'worker.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    logLevel: 'warning',
    // tsup's chunks import their own dependency chunks bare; with "sideEffects": false esbuild drops
    // those imports, which is right (the named imports bring the chunks in) but warns about each.
    logOverride: { 'ignored-bare-import': 'silent' },
  })
  writeFileSync(path.join(dir, 'config.capnp'), WORKERD_CONFIG)
  return [runtimes.workerd, 'test', path.join(dir, 'config.capnp')]
}

/**
 * Packs dist/ as npm would publish it (no rebuild: the smoke test runs against the dist/ just built)
 * and unpacks it as `node_modules/reliability-gate` under `dir`, beside a copy of require-all.cjs;
 * the package's own dependencies resolve from the project's node_modules above `dir`.
 */
function preparePacked(dir) {
  const [{ filename }] = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' }))
  const target = path.join(dir, 'node_modules/reliability-gate')
  mkdirSync(target, { recursive: true })
  execFileSync('tar', ['-xzf', path.join(dir, filename), '-C', target, '--strip-components=1'])
  copyFileSync(REQUIRE_ALL, path.join(dir, 'require-all.cjs'))
  return path.join(dir, 'require-all.cjs')
}

const runtimes = await installRuntimes(path.join(ROOT, '.cache/runtimes'))
const SMOKE = 'strict-output retry'
const REQUIRE = 'require()'
/** Each check: its name, what its report line starts with and contains, and how to start it. */
const RUNTIMES = [
  { name: 'Node 24', expect: 'node 24.', report: SMOKE, command: async () => [bin('node'), MAIN] },
  // npx fetches node@22 from the registry once, then runs it from its cache.
  { name: 'Node 22', expect: 'node 22.', report: SMOKE, command: async () => ['npx', '--yes', 'node@22', MAIN] },
  { name: 'Bun', expect: 'bun ', report: SMOKE, command: async () => [runtimes.bun, MAIN] },
  { name: 'Deno', expect: 'deno ', report: SMOKE, command: async () => [runtimes.deno, 'run', '--no-prompt', MAIN] },
  { name: 'workerd', expect: 'workerd', report: SMOKE, command: prepareWorker },
  { name: 'Node 24 require()', expect: 'node 24.', report: REQUIRE, command: async (dir) => [bin('node'), packed(dir)] },
  { name: 'Node 22 require()', expect: 'node 22.', report: REQUIRE, command: async (dir) => ['npx', '--yes', 'node@22', packed(dir)] },
]
let packedScript
const packed = (dir) => (packedScript ??= preparePacked(dir))

/** Runs one command; resolves with its exit code and output, never rejects. */
function run([command, ...args]) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], timeout: TIMEOUT_MS })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.once('error', (error) => resolve({ code: -1, output: `${output}${error.message}` }))
    child.once('close', (code, signal) => resolve({ code: code ?? signal, output }))
  })
}

if (!existsSync(path.join(ROOT, 'dist/index.js'))) {
  console.error('test:runtimes: dist/ is missing: run `npm run build` first')
  process.exit(1)
}

const dir = mkdtempSync(path.join(ROOT, '.runtimes-'))
let failed = 0
try {
  const results = await Promise.all(
    RUNTIMES.map(async (r) => {
      const started = performance.now()
      const { code, output } = await run(await r.command(dir))
      const report = output.split('\n').find((line) => line.includes(r.expect) && line.includes(r.report))
      return { r, ok: code === 0 && report !== undefined, code, output, report, seconds: (performance.now() - started) / 1000 }
    }),
  )
  for (const { r, ok, code, output, report, seconds } of results) {
    if (ok) {
      console.log(`✓ ${report.trim().replace(/^.*?(?=\b(node|bun|deno|workerd)\b)/, '')} (${seconds.toFixed(1)} s)`)
    } else {
      failed++
      console.log(`✗ ${r.name}: exit code ${code}\n${output.trim().replace(/^/gm, '    ')}`)
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
console.log(`runtimes: ${RUNTIMES.length - failed} passed, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
