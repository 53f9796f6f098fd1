// `npm run check:readme` (also run by test/docs/readme.test.ts): type-checks every ```ts block of
// README.md against the library's sources, as a consumer would write it. Each block becomes a module in
// a temporary folder inside the project (so `openai`, `typebox`, ... resolve from node_modules), and a
// generated tsconfig maps `reliability-gate` and each of its subpaths (package.json `exports` -> dist
// file -> tsup entry) to the source file. Errors are reported at their README line. A block that is
// a fragment can be skipped with `<!-- ts-check: skip -->` on the line before its fence. `--keep`
// keeps the folder.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { packageEntries } from './package-entries.mjs'
import { SKIP, tsBlocks, writeBlocks } from './readme-blocks.mjs'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** `reliability-gate[/subpath]` -> the source file it is built from (tsconfig `paths`). */
async function sourcePaths() {
  const paths = {}
  for (const { importPath, source } of await packageEntries()) paths[importPath] = [path.posix.join('..', source)]
  return paths
}

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8')
const blocks = tsBlocks(readme)
// One folder per run (runs may overlap); .gitignore lists the pattern.
const OUT = mkdtempSync(path.join(ROOT, '.readme-check-'))
const files = writeBlocks(readme, OUT)
writeFileSync(
  path.join(OUT, 'tsconfig.json'),
  JSON.stringify(
    {
      extends: '../tsconfig.json',
      // Snippets show a value without always using it.
      compilerOptions: { noUnusedLocals: false, noUnusedParameters: false, paths: await sourcePaths() },
      include: ['*.ts'],
    },
    null,
    2,
  ),
)

const tsc = spawnSync(
  process.execPath,
  [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '--pretty', 'false', '-p', path.join(OUT, 'tsconfig.json')],
  {
    cwd: ROOT,
    encoding: 'utf8',
  },
)
const skipped = blocks.length - files.size
// tsc names a block file and a line in it: point at the README line instead.
const report = `${tsc.stdout}${tsc.stderr}`.replace(/\.readme-check-\w+\/(block-\d+\.ts)\((\d+),(\d+)\)/g, (all, file, line, column) => {
  const block = files.get(file)
  return block === undefined ? all : `README.md(${block.line + Number(line) - 1},${column})`
})
if (process.argv.includes('--keep')) console.log(`kept ${path.relative(ROOT, OUT)}`)
else rmSync(OUT, { recursive: true, force: true })
if (tsc.status !== 0) {
  process.stderr.write(report)
  console.error(`README.md: ${files.size} ts blocks checked, type errors above (${skipped} skipped with "${SKIP}")`)
  process.exit(1)
}
console.log(`README.md: ${files.size} ts blocks type-check (${skipped} skipped with "${SKIP}")`)
