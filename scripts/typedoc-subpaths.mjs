// TypeDoc plugin for `npm run docs`: names each documented module after the import path users write
// ('reliability-gate', 'reliability-gate/openai', ...) instead of its source file, from the package's
// `exports` map and the tsup entries behind it, and fails the run when a subpath is not documented
// (typedoc.json's entryPoints must list every exported entry).
import { readFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { Converter, ReflectionKind } from 'typedoc'

const root = resolve(import.meta.dirname, '..')
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'))
const { default: tsup } = await import(new URL('../tsup.config.ts', import.meta.url).href)

/** Source file (relative to the package root) -> import path, for every subpath export with code. */
function subpaths() {
  const names = new Map()
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target !== 'object') continue
    const entry = /^\.\/dist\/(.+)\.js$/.exec(target.import)?.[1]
    const source = entry === undefined ? undefined : tsup.entry[entry]
    if (source === undefined) throw new Error(`typedoc-subpaths: no tsup entry builds ${target.import} (${subpath})`)
    names.set(source, subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`)
  }
  return names
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  const names = subpaths()
  app.converter.on(Converter.EVENT_BEGIN, () => {
    const documented = new Set(app.options.getValue('entryPoints').map((p) => relative(root, resolve(root, p))))
    for (const [source, name] of names) {
      if (!documented.has(source)) app.logger.error(`typedoc-subpaths: ${name} (${source}) is exported but not in typedoc.json's entryPoints`)
    }
  })
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.kindOf(ReflectionKind.Module)) return
    const id = context.project.getSymbolIdFromReflection(reflection)
    const name = id === undefined ? undefined : names.get(id.packagePath)
    if (name !== undefined) reflection.name = name
  })
}
