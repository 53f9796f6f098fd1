import type { StepConfigProblem } from './step-config-error.ts'

interface NodeFs {
  readFileSync(path: string, encoding: 'utf8'): string
}
interface NodePath {
  resolve(...paths: string[]): string
}

// Jinja delimiters or a line break: the value is the template itself, not the name of a file.
const INLINE_TEMPLATE = /\{\{|\{%|\{#|[\r\n]/

/** True when an `error_template` value is a template rather than a file path. */
export function isInlineTemplate(value: string): boolean {
  return INLINE_TEMPLATE.test(value)
}

/**
 * Reads an `error_template` given as a file path, relative to `baseDir` as pyconveyor reads it
 * relative to the pipeline's folder. Returns the template, or the problem to report (the path is
 * never sent to the model). Node's `fs` is loaded through `process.getBuiltinModule`, so no `node:`
 * import reaches bundles of the library.
 */
export function loadErrorTemplate(path: string, baseDir: string | undefined): { readonly template: string } | { readonly problem: StepConfigProblem } {
  const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule
  const fs = typeof getBuiltinModule === 'function' ? (getBuiltinModule('node:fs') as NodeFs | undefined) : undefined
  const nodePath = typeof getBuiltinModule === 'function' ? (getBuiltinModule('node:path') as NodePath | undefined) : undefined
  const expected = 'a Jinja template, or the path of a readable template file'
  if (fs === undefined || nodePath === undefined) {
    return { problem: { key: 'error_template', expected, received: `path ${JSON.stringify(path)}, but this runtime cannot read files` } }
  }
  const full = nodePath.resolve(baseDir ?? process.cwd(), path)
  try {
    return { template: fs.readFileSync(full, 'utf8') }
  } catch (error) {
    const code = (error as { code?: unknown }).code
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : `unreadable (${String(code ?? error)})`
    return { problem: { key: 'error_template', expected, received: `path ${JSON.stringify(path)} (${full}): ${why}` } }
  }
}
