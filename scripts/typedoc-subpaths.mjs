// TypeDoc plugin for `npm run docs`: names each documented module after the import path users write
// ('reliability-gate', 'reliability-gate/openai', ...) instead of its source file, from the package's
// `exports` map and the tsup entries behind it, and fails the run when a subpath is not documented
// (typedoc.json's entryPoints must list every exported entry).
import { relative, resolve } from 'node:path'
import { Converter, ReflectionKind } from 'typedoc'
import { packageEntries } from './package-entries.mjs'

const root = resolve(import.meta.dirname, '..')

/** Source file (relative to the package root) -> import path, for every subpath export with code. */
async function subpaths() {
  return new Map((await packageEntries()).map(({ importPath, source }) => [source.replace(/^\.\//, ''), importPath]))
}

/** @param {import('typedoc').Application} app */
export async function load(app) {
  const names = await subpaths()
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
