/**
 * Install size: the package as published (`npm pack` of this repository) plus its runtime
 * `dependencies` closure, installed into a temporary folder with
 * `npm install --omit=dev --omit=peer --omit=optional`, with the file sizes summed per package.
 * The AI SDK's `ai` (the version in the lockfile) is installed the same way for comparison.
 *
 * Run alone with `node bench/install-size.ts`; `npm run bench` calls it.
 */
import { spawnSync } from 'node:child_process'
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ensureBuilt, ROOT } from './support/build.ts'

const MiB = 2 ** 20

/** One installed closure. */
export interface InstallSize {
  /** What was installed (the tarball's name, or `ai@<version>`). */
  readonly spec: string
  readonly totalBytes: number
  readonly files: number
  /** Bytes per installed package, largest first. */
  readonly packages: readonly { readonly name: string; readonly bytes: number; readonly files: number }[]
}

export interface InstallSizes {
  /** The packed tarball itself (what `npm publish` would upload), compressed and unpacked. */
  readonly tarball: { readonly file: string; readonly bytes: number; readonly unpackedBytes: number }
  readonly gate: InstallSize
  readonly ai: InstallSize
}

function npm(args: readonly string[], cwd: string): string {
  const run = spawnSync('npm', ['--no-audit', '--no-fund', '--loglevel=error', ...args], { cwd, encoding: 'utf8', maxBuffer: 16 << 20, timeout: 300_000 })
  if (run.status !== 0) throw new Error(`npm ${args.join(' ')} failed (exit ${run.status}): ${run.stderr.trim()}`)
  return run.stdout
}

/** Sums regular files under node_modules, each counted for the innermost package that holds it. */
function measureTree(modules: string): Omit<InstallSize, 'spec'> {
  const perPackage = new Map<string, { bytes: number; files: number }>()
  const walk = (dir: string, owner: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isSymbolicLink()) continue // .bin links point at files already counted
      if (entry.isDirectory()) {
        if (path.basename(dir) === 'node_modules' && entry.name.startsWith('@')) {
          for (const scoped of readdirSync(full)) walk(path.join(full, scoped), `${entry.name}/${scoped}`)
        } else if (path.basename(dir) === 'node_modules') {
          walk(full, entry.name === '.bin' ? '(bin links)' : entry.name)
        } else {
          walk(full, owner)
        }
        continue
      }
      const sum = perPackage.get(owner) ?? { bytes: 0, files: 0 }
      sum.bytes += lstatSync(full).size
      sum.files += 1
      perPackage.set(owner, sum)
    }
  }
  walk(modules, '(npm metadata)')
  const packages = [...perPackage].map(([name, s]) => ({ name, ...s })).sort((a, b) => b.bytes - a.bytes)
  return { totalBytes: packages.reduce((n, p) => n + p.bytes, 0), files: packages.reduce((n, p) => n + p.files, 0), packages }
}

/** Installs `spec` alone into a fresh folder (runtime closure only) and measures it. */
function installAndMeasure(spec: string, label: string): InstallSize {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rg-install-'))
  try {
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'install-size-probe', private: true }))
    npm(['install', '--omit=dev', '--omit=peer', '--omit=optional', '--ignore-scripts', '--no-package-lock', spec], dir)
    return { spec: label, ...measureTree(path.join(dir, 'node_modules')) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export function installSizes(): InstallSizes {
  ensureBuilt()
  const packDir = mkdtempSync(path.join(os.tmpdir(), 'rg-pack-'))
  try {
    const [packed] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], ROOT)) as {
      filename: string
      size: number
      unpackedSize: number
    }[]
    if (packed === undefined) throw new Error('npm pack reported nothing')
    const tarball = path.join(packDir, path.basename(packed.filename))
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> }
    const aiVersion = lock.packages['node_modules/ai']?.version ?? 'latest'
    return {
      tarball: { file: packed.filename, bytes: packed.size, unpackedBytes: packed.unpackedSize },
      gate: installAndMeasure(tarball, packed.filename),
      ai: installAndMeasure(`ai@${aiVersion}`, `ai@${aiVersion}`),
    }
  } finally {
    rmSync(packDir, { recursive: true, force: true })
  }
}

/** Bytes as MiB with two decimals. */
export function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(2)} MiB`
}

if (import.meta.filename === process.argv[1]) {
  const sizes = installSizes()
  for (const size of [sizes.gate, sizes.ai]) {
    console.log(`${size.spec}: ${mib(size.totalBytes)} in ${size.files} files`)
    for (const p of size.packages) console.log(`  ${p.name.padEnd(28)} ${mib(p.bytes)}`)
  }
}
