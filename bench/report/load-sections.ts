import type { BundleSize } from '../bundle-size.ts'
import type { InstallSizes } from '../install-size.ts'
import type { ImportCost } from '../load/import-cost.ts'
import type { LoadedModules } from '../load/modules.ts'
import { bytes, ratio, table } from './format.ts'

/** The load and install figures of bench/results/bench.json. */
export interface LoadResults {
  readonly importCost: ImportCost
  readonly install: InstallSizes
  readonly bundles: readonly BundleSize[]
}

/** Install target: the package with its runtime dependency closure, in MiB. */
export const INSTALL_TARGET_MIB = 10

const MiB = 2 ** 20
const mib = (n: number) => `${(n / MiB).toFixed(2)} MiB`
const ms = (n: number) => `${n.toFixed(0)} ms`

function heavyCells(m: LoadedModules): string[] {
  const typebox = m.heavy['typebox/compile'] !== undefined ? `yes (${m.packages.typebox ?? 0} typebox files)` : 'no'
  const cjs = m.heavy['rxjs (CommonJS build)']
  const esm = m.heavy['rxjs (ESM build)']
  const rxjs = cjs !== undefined ? `CommonJS build, ${cjs} files` : esm !== undefined ? `ESM build, ${esm} files` : 'no'
  const tokenizer = m.heavy['gpt-tokenizer'] !== undefined ? `yes (${m.heavy['gpt-tokenizer']} files)` : 'no'
  return [String(m.files), typebox, rxjs, tokenizer]
}

export function loadSections(r: LoadResults): string[] {
  const { importCost: c, install, bundles } = r
  const gate = c.times['reliability-gate']
  const ai = c.times.ai
  const out: string[] = ['## Load and install cost', '', '### Cold import of the main entry', '']
  out.push(
    `\`await import()\` of the built main entry (\`dist/index.js\`, what users import; \`npm run build\` runs first when`,
    "`dist/` is stale) against the AI SDK's main entry `ai`, each in a fresh `node` process with nothing cached, the two",
    `interleaved, median of ${gate.runs}. "Process" is the whole process's wall time (Node start, the import, exit).`,
    '',
  )
  out.push(
    ...table(
      ['main entry', 'import (median)', 'process (median)', 'files loaded'],
      [
        ['reliability-gate', ms(gate.importMs), ms(gate.processMs), String(c.modules['reliability-gate'].files)],
        ['ai', ms(ai.importMs), ms(ai.processMs), String(c.modules.ai.files)],
      ],
    ),
    '',
    `Ratio reliability-gate : ai = **${ratio(c.ratio)}** (target ≤ 1.00x: **${c.ratio <= 1 ? 'met' : 'missed'}**).`,
    '',
  )
  out.push('### Heavy modules loaded', '')
  out.push('Files counted with a `module.registerHooks` load hook (ESM and CommonJS alike) in a fresh process.', '')
  const rows = [
    ['import reliability-gate', ...heavyCells(c.modules['reliability-gate'])],
    ['import ai', ...heavyCells(c.modules.ai)],
    ['import + first gate run, TypeBox schema', ...heavyCells(c.firstRun.typebox.afterRun)],
    ['import + first gate run, Zod schema (+ zod itself)', ...heavyCells(c.firstRun.zod.afterRun)],
  ]
  out.push(...table(['what', 'files', 'typebox/compile', 'rxjs', 'gpt-tokenizer'], rows), '')
  const perPackage = Object.entries(c.modules['reliability-gate'].packages).sort((a, b) => b[1] - a[1])
  out.push(`Files per package on \`import 'reliability-gate'\`: ${perPackage.map(([name, n]) => `${name} ${n}`).join(', ')}.`, '')

  out.push('### Install size', '')
  out.push(
    '`npm pack` of this repository installed into an empty folder with `npm install --omit=dev --omit=peer --omit=optional`',
    "(the runtime `dependencies` closure), file sizes summed per installed package; `ai` (the lockfile's version) installed",
    `the same way for comparison. The tarball itself: ${bytes(install.tarball.bytes)} packed, ${bytes(install.tarball.unpackedBytes)} unpacked.`,
    '',
  )
  out.push(
    ...table(
      ['install', 'total', 'files', 'largest packages'],
      [install.gate, install.ai].map((s) => [
        s.spec,
        mib(s.totalBytes),
        String(s.files),
        s.packages
          .slice(0, 4)
          .map((p) => `${p.name} ${mib(p.bytes)}`)
          .join(', '),
      ]),
    ),
    '',
  )
  out.push(
    ...table(
      ['package (reliability-gate install)', 'size', 'files'],
      install.gate.packages.map((p) => [p.name, mib(p.bytes), String(p.files)]),
    ),
    '',
  )
  const total = install.gate.totalBytes / MiB
  out.push(`Target ≤ ${INSTALL_TARGET_MIB} MiB: ${total.toFixed(2)} MiB, **${total <= INSTALL_TARGET_MIB ? 'met' : 'missed'}**.`, '')

  out.push('### Minified bundle of a minimal program', '')
  out.push(
    'esbuild, `--bundle --minify --format=esm --platform=node`, every dependency inlined; each program validates one',
    '`{action, amount}` answer from a stub model, and is run once to check the bundle works. gzip at level 9.',
    '',
  )
  out.push(
    ...table(
      ['program', 'minified', 'gzip', 'runs'],
      bundles.map((b) => [b.name, bytes(b.bytes), bytes(b.gzipBytes), b.ran.startsWith('failed') ? b.ran : 'ok']),
    ),
    '',
  )
  return out
}
