// The package's public import paths and the source files they are built from: package.json `exports`
// -> dist file -> tsup entry. Shared by the README type check and the TypeDoc plugin.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const ROOT = resolve(import.meta.dirname, '..')

/**
 * Every export with code, as `{ importPath, source }`: `importPath` is what users write
 * (`reliability-gate`, `reliability-gate/openai`), `source` the entry file relative to the package
 * root. Throws when an export points at a dist file no tsup entry builds.
 */
export async function packageEntries() {
  const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8'))
  const { default: config } = await import(pathToFileURL(resolve(ROOT, 'tsup.config.ts')).href)
  const configs = [typeof config === 'function' ? await config({}) : config].flat()
  const entries = Object.assign({}, ...configs.map((c) => c.entry ?? {}))
  const out = []
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const file = typeof target === 'string' ? target : target.import
    const match = /^\.\/dist\/(.+)\.js$/.exec(file ?? '')
    if (match === null) continue
    const source = entries[match[1]]
    if (source === undefined) throw new Error(`package.json exports "${subpath}" -> ${file}, but tsup.config.ts has no entry "${match[1]}"`)
    out.push({ importPath: subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, source })
  }
  return out
}

/**
 * What is wrong with the package.json `exports` map and `typesVersions` of `pkg`, one line per
 * problem (empty when none). Every export with code has exactly `types`, `import` and `default`, in
 * that order: `default` is the ESM file `import` names, so `require()` loads it on Node 22+ (the
 * build has no top-level await), and `types` is its declaration file. `typesVersions` maps every
 * subpath to the same declaration file, for TypeScript's `node10` resolution, which ignores
 * `exports`.
 */
export function exportProblems(pkg) {
  const problems = []
  const typesVersions = pkg.typesVersions?.['*'] ?? {}
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue
    const file = target.import
    const expected = { types: file?.replace(/\.js$/, '.d.ts'), import: file, default: file }
    if (JSON.stringify(target) !== JSON.stringify(expected))
      problems.push(`exports "${subpath}" is ${JSON.stringify(target)}, expected ${JSON.stringify(expected)} (types, import, default, in that order)`)
    if (subpath === '.') continue
    const mapped = typesVersions[subpath.slice(2)]
    if (JSON.stringify(mapped) !== JSON.stringify([expected.types]))
      problems.push(`typesVersions["*"]["${subpath.slice(2)}"] is ${JSON.stringify(mapped)}, expected ${JSON.stringify([expected.types])}`)
  }
  for (const name of Object.keys(typesVersions)) {
    if (!(`./${name}` in pkg.exports)) problems.push(`typesVersions["*"]["${name}"] maps a subpath that exports does not have`)
  }
  return problems
}

/** `node scripts/package-entries.mjs [package.json]`: prints the export map's problems, exit code 1 when there are any. */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const problems = exportProblems(JSON.parse(readFileSync(resolve(process.argv[2] ?? resolve(ROOT, 'package.json')), 'utf8')))
  for (const p of problems) console.error(p)
  process.exit(problems.length === 0 ? 0 : 1)
}
