import type { StepConfigProblem } from './step-config-error.ts'

interface NodeStats {
  isFile(): boolean
  readonly size: number
}
interface NodeFs {
  realpathSync(path: string): string
  statSync(path: string): NodeStats
  openSync(path: string, flags: string): number
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number
  closeSync(fd: number): void
}
interface NodePath {
  resolve(...paths: string[]): string
  readonly sep: string
}

/** Largest template file read, in bytes: a feedback template is a few lines, never a document. */
export const MAX_TEMPLATE_BYTES = 65_536

// Jinja delimiters or a line break: the value is the template itself, not the name of a file.
const INLINE_TEMPLATE = /\{\{|\{%|\{#|[\r\n]/

/** True when an `error_template` value is a template rather than a file path. */
export function isInlineTemplate(value: string): boolean {
  return INLINE_TEMPLATE.test(value)
}

type Loaded = { readonly template: string } | { readonly problem: StepConfigProblem }

/**
 * Reads an `error_template` given as a file path, relative to `baseDir` (the working directory when
 * none is given) as pyconveyor reads it relative to the pipeline's folder. The file's text is sent to
 * the model on every retry, so only a regular file inside `baseDir` is read, once symlinks are
 * resolved (`realpath`), and at most {@link MAX_TEMPLATE_BYTES} of it: `../../secret.txt`, an absolute
 * path elsewhere, a symlink out of the folder, `/dev/zero`, a FIFO or a directory are problems to
 * report. Returns the template, or the problem (the path is never sent to the model). Node's `fs` is
 * loaded through `process.getBuiltinModule`, so no `node:` import reaches bundles of the library.
 */
export function loadErrorTemplate(path: string, baseDir: string | undefined): Loaded {
  const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule
  const fs = typeof getBuiltinModule === 'function' ? (getBuiltinModule('node:fs') as NodeFs | undefined) : undefined
  const nodePath = typeof getBuiltinModule === 'function' ? (getBuiltinModule('node:path') as NodePath | undefined) : undefined
  const problem = (received: string): Loaded => ({ problem: { key: 'error_template', expected: EXPECTED, received } })
  if (fs === undefined || nodePath === undefined) return problem(`path ${JSON.stringify(path)}, but this runtime cannot read files`)
  let base: string
  try {
    base = fs.realpathSync(nodePath.resolve(baseDir ?? process.cwd()))
  } catch (error) {
    return problem(`path ${JSON.stringify(path)}, but baseDir ${JSON.stringify(baseDir ?? process.cwd())} ${why(error)}`)
  }
  const full = nodePath.resolve(base, path)
  const shown = `path ${JSON.stringify(path)} (${full})`
  const inside = (p: string) => p === base || p.startsWith(base.endsWith(nodePath.sep) ? base : base + nodePath.sep)
  // Checked before anything is opened, then again once symlinks are resolved.
  if (!inside(full)) return problem(`${shown}: outside baseDir ${JSON.stringify(base)}`)
  try {
    const real = fs.realpathSync(full)
    if (!inside(real)) return problem(`${shown}: resolves to ${JSON.stringify(real)}, outside baseDir ${JSON.stringify(base)}`)
    if (!fs.statSync(real).isFile()) return problem(`${shown}: not a regular file`)
    const text = readBounded(fs, real)
    if (text === undefined) return problem(`${shown}: larger than ${MAX_TEMPLATE_BYTES} bytes`)
    return { template: text }
  } catch (error) {
    return problem(`${shown}: ${why(error)}`)
  }
}

const EXPECTED = 'a Jinja template, or the path of a readable template file inside baseDir'

/** The file's text, or `undefined` when it holds more than {@link MAX_TEMPLATE_BYTES} (whatever its size says). */
function readBounded(fs: NodeFs, path: string): string | undefined {
  const buffer = new Uint8Array(MAX_TEMPLATE_BYTES + 1)
  const fd = fs.openSync(path, 'r')
  let length = 0
  try {
    while (length < buffer.length) {
      const read = fs.readSync(fd, buffer, length, buffer.length - length, null)
      if (read === 0) break
      length += read
    }
  } finally {
    fs.closeSync(fd)
  }
  return length > MAX_TEMPLATE_BYTES ? undefined : new TextDecoder().decode(buffer.subarray(0, length))
}

function why(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'ENOENT') return 'no such file'
  if (code === 'EISDIR') return 'a directory'
  if (code === 'ERR_INVALID_ARG_VALUE' || code === 'ERR_INVALID_ARG_TYPE') return 'not a valid path'
  return `unreadable (${String(code ?? 'unknown error')})`
}
