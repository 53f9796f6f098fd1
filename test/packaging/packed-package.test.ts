import { execFile } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs script without types.
import { writeBlocks } from '../../scripts/readme-blocks.mjs'

// The package as npm publishes it: `npm pack` (its prepack builds dist/), unpacked into projects
// that install it, once per AI SDK major. Each project sits inside the repository, so the package's
// own dependencies resolve from its node_modules; `ai` and `@ai-sdk/provider` resolve from the
// project's node_modules (ai 6 and provider 3 under their aliases), as in a user's project.
// Node 22's require() of every entry is in the runtime smoke test (`npm run smoke:runtimes`).

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const FIXTURES = path.join(ROOT, 'test/fixtures/consumers')
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc')
const SLOW = 600_000
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> }

function run(command: string, args: readonly string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: SLOW, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, output: `${stdout}${stderr}` }),
    )
  })
}

/** Every import path of the package: `reliability-gate`, `reliability-gate/openai`, ... */
const importPaths = Object.entries(pkg.exports)
  .filter(([, target]) => typeof target !== 'string')
  .map(([subpath]) => (subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`))

let dir: string
let tarball: string
let files: readonly string[]

/** A project with the unpacked package, the fixtures and, for `links`, packages under other names. */
async function project(name: string, aiSdkFixture: string, links: Record<string, string>): Promise<void> {
  const home = path.join(dir, name)
  const installed = path.join(home, 'node_modules', pkg.name)
  mkdirSync(installed, { recursive: true })
  const untar = await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'], home)
  if (untar.code !== 0) throw new Error(`tar failed:\n${untar.output}`)
  for (const [as, target] of Object.entries(links)) {
    mkdirSync(path.dirname(path.join(home, 'node_modules', as)), { recursive: true })
    symlinkSync(path.join(ROOT, 'node_modules', target), path.join(home, 'node_modules', as), 'dir')
  }
  writeFileSync(path.join(home, 'package.json'), JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module' }))
  copyFileSync(path.join(FIXTURES, aiSdkFixture), path.join(home, 'ai-sdk.ts'))
  for (const config of ['tsconfig.node16.json', 'tsconfig.bundler.json']) copyFileSync(path.join(FIXTURES, config), path.join(home, config))
  // Every entry, from an ES module and from a CommonJS file: each must resolve to its declarations.
  const names = importPaths.map((_, i) => `entry${i}`)
  writeFileSync(
    path.join(home, 'entries.mts'),
    `${importPaths.map((p, i) => `import * as ${names[i]} from '${p}'`).join('\n')}\nexport const entries = [${names}]\n`,
  )
  writeFileSync(
    path.join(home, 'entries.cts'),
    `${importPaths.map((p, i) => `import ${names[i]} = require('${p}')`).join('\n')}\nexport const entries = [${names}]\n`,
  )
  copyFileSync(path.join(ROOT, 'scripts/runtimes/require-all.cjs'), path.join(home, 'require-all.cjs'))
  // The README's ts blocks, as a user pastes them into a project of either resolution (snippets show a value without always using it).
  mkdirSync(path.join(home, 'readme'))
  writeBlocks(readFileSync(path.join(ROOT, 'README.md'), 'utf8'), path.join(home, 'readme'))
  copyFileSync(path.join(FIXTURES, 'design-sketch.ts'), path.join(home, 'readme', 'design-sketch.ts'))
  for (const config of ['node16', 'bundler']) {
    const readmeConfig = { extends: `./tsconfig.${config}.json`, compilerOptions: { noUnusedLocals: false }, files: undefined, include: ['readme/*.ts'] }
    writeFileSync(path.join(home, `tsconfig.readme-${config}.json`), JSON.stringify(readmeConfig))
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(ROOT, '.packed-'))
  const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], ROOT)
  if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.output}`)
  // The build's log (prepack) shares the output with npm's JSON report: the report is the block from a `[` line to a `]` line.
  const json = /^\[$[\s\S]*?^\]$/m.exec(packed.output)?.[0] ?? ''
  const [report] = JSON.parse(json) as [{ filename: string; files: { path: string }[] }]
  tarball = path.join(dir, report.filename)
  files = report.files.map((f) => f.path)
  await project('ai6', 'ai-sdk-v6.ts', { ai: 'ai-v6', '@ai-sdk/provider': 'ai-sdk-provider-v3' })
  await project('ai7', 'ai-sdk-v7.ts', {})
}, SLOW)

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

describe('The packed package', () => {
  it('holds the build, its declarations, the README and the LICENSE (prepack builds)', () => {
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/ai-sdk/index.d.ts', 'README.md', 'LICENSE', 'package.json']))
  })

  it('loads the main entry and every subpath with require() from a .cjs file', async () => {
    const { code, output } = await run(process.execPath, ['require-all.cjs'], path.join(dir, 'ai7'))
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining(`require() of ${importPaths.length} entry points`) })
  })

  it(
    'type-checks on ai 6 with skipLibCheck off: node16 resolution, from ES modules and CommonJS',
    async () => {
      const { code, output } = await run(process.execPath, [TSC, '-p', 'tsconfig.node16.json'], path.join(dir, 'ai6'))
      expect({ code, output }).toEqual({ code: 0, output: '' })
    },
    SLOW,
  )

  it(
    'type-checks on ai 7 with skipLibCheck off: bundler resolution',
    async () => {
      const { code, output } = await run(process.execPath, [TSC, '-p', 'tsconfig.bundler.json'], path.join(dir, 'ai7'))
      expect({ code, output }).toEqual({ code: 0, output: '' })
    },
    SLOW,
  )

  it(
    "type-checks the README's samples and DESIGN's API sketch against the packed declarations, with node16 and with bundler resolution",
    async () => {
      for (const config of ['node16', 'bundler']) {
        const { code, output } = await run(process.execPath, [TSC, '-p', `tsconfig.readme-${config}.json`], path.join(dir, 'ai7'))
        expect({ config, code, output }).toEqual({ config, code: 0, output: '' })
      }
    },
    SLOW,
  )
})
