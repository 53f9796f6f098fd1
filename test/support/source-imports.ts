import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/** The library's source folder. */
export const SRC = resolve(import.meta.dirname, '../../src')

/** Every TypeScript file under src/, as absolute paths. */
export function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(SRC, f))
}

// `import`/`export ... from` of a relative module, and bare `import './x.ts'`.
const IMPORT = /^\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]/gm

/** One relative import of a source file: where it points and whether it is erased at runtime. */
export interface SourceImport {
  readonly to: string
  readonly typeOnly: boolean
}

/** The relative imports of `file` (type-only ones are `import type`, or only `type` names). */
export function sourceImports(file: string): SourceImport[] {
  const out: SourceImport[] = []
  for (const [, typeKeyword, clause = '', from, bare] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const names = /^\{([^}]*)\}$/
      .exec(clause.trim())?.[1]
      ?.split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '')
    const typeOnly = typeKeyword !== undefined || (names !== undefined && names.length > 0 && names.every((n) => n.startsWith('type ')))
    out.push({ to: resolve(dirname(file), (from ?? bare) as string), typeOnly })
  }
  return out
}
