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
