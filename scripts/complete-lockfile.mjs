// The npm registry mirror this project is built against lacks some platform binaries (rollup's for
// platforms other than Linux glibc, some of deno's, workerd's and Biome's: it answers 404), so `npm
// install` silently leaves them out of package-lock.json and `npm ci` then rejects the lock
// ("Missing: @rollup/rollup-… from lock file").
// This records each missing optional platform package with its os/cpu/libc, exactly as npm would
// have, so `npm ci` skips them on this platform and installs them where they apply.
// Run after any `npm install` that changes the lock: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs'

const lockPath = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(readFileSync(lockPath, 'utf8'))
const packages = lock.packages

const CPU = {
  arm: 'arm',
  'arm-eabi': 'arm',
  gnueabihf: 'arm',
  musleabihf: 'arm',
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  loong64: 'loong64',
  ppc64: 'ppc64',
  riscv64: 'riscv64',
  s390x: 's390x',
}
const OS = { android: 'android', darwin: 'darwin', freebsd: 'freebsd', linux: 'linux', openbsd: 'openbsd', openharmony: 'openharmony', win32: 'win32' }

function platformOf(name) {
  return rollupPlatform(name) ?? denoPlatform(name) ?? workerdPlatform(name) ?? biomePlatform(name)
}

// @biomejs/cli-<os>-<cpu>[-musl] (Linux builds without -musl are glibc ones)
function biomePlatform(name) {
  const match = /^@biomejs\/cli-(android|darwin|linux|win32)-(x64|arm64)(-musl)?$/.exec(name)
  if (!match) return undefined
  const libc = match[1] === 'linux' ? { libc: [match[3] ? 'musl' : 'glibc'] } : {}
  return { os: [match[1]], cpu: [match[2]], ...libc }
}

// @deno/<os>-<cpu>[-glibc]
function denoPlatform(name) {
  const match = /^@deno\/(darwin|linux|win32)-(x64|arm64)(-glibc)?$/.exec(name)
  if (!match) return undefined
  return { os: [match[1]], cpu: [match[2]], ...(match[3] ? { libc: ['glibc'] } : {}) }
}

// @cloudflare/workerd-<os>-<64|arm64>
function workerdPlatform(name) {
  const match = /^@cloudflare\/workerd-(darwin|linux|windows)-(64|arm64)$/.exec(name)
  if (!match) return undefined
  return { os: [match[1] === 'windows' ? 'win32' : match[1]], cpu: [match[2] === '64' ? 'x64' : 'arm64'] }
}

function rollupPlatform(name) {
  // @rollup/rollup-<os>-<cpu>[-<abi>]
  const match = /^@rollup\/rollup-([a-z0-9]+)-([a-z0-9]+)(?:-([a-z0-9]+))?$/.exec(name)
  if (!match) return undefined
  const [, os, cpuPart, abi] = match
  const cpu = cpuPart === 'arm' && abi === 'eabi' ? 'arm' : CPU[cpuPart]
  if (!OS[os] || !cpu) return undefined
  const entry = { os: [OS[os]], cpu: [cpu] }
  if (os === 'linux' && abi?.startsWith('musl')) entry.libc = ['musl']
  else if (os === 'linux' && abi?.startsWith('gnu')) entry.libc = ['glibc']
  return entry
}

let added = 0
for (const [path, meta] of Object.entries(packages)) {
  if (!meta.optionalDependencies) continue
  const base = path === '' ? 'node_modules/' : `${path}/node_modules/`
  for (const [name, version] of Object.entries(meta.optionalDependencies)) {
    if (packages[`${base}${name}`] || packages[`node_modules/${name}`]) continue
    const platform = platformOf(name)
    if (!platform) continue
    packages[`node_modules/${name}`] = { version, ...platform, dev: meta.dev, optional: true, license: meta.license ?? 'MIT' }
    added++
  }
}

const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)))
lock.packages = sorted
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`complete-lockfile: added ${added} optional platform entries`)
