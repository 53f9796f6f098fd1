import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = resolve(import.meta.dirname, '../../src')
const MAX_LINES = 300

const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(SRC, f))

// `import`/`export ... from` of a relative module, and bare `import './x.ts'`.
const IMPORT = /^\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]/gm

/** The modules `file` loads at runtime: type-only imports (`import type`, or only `type` names) are erased. */
function runtimeImports(file: string): string[] {
  const out: string[] = []
  for (const [, typeOnly, clause = '', from, bare] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    if (typeOnly !== undefined) continue
    const names = /^\{([^}]*)\}$/
      .exec(clause.trim())?.[1]
      ?.split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '')
    if (names !== undefined && names.length > 0 && names.every((n) => n.startsWith('type '))) continue
    out.push(resolve(dirname(file), (from ?? bare) as string))
  }
  return out
}

/** Every cycle of the import graph, each as the files of one strongly connected component. */
function importCycles(): string[][] {
  const graph = new Map(files.map((f) => [f, runtimeImports(f).filter((to) => files.includes(to))]))
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const cycles: string[][] = []
  const visit = (v: string): void => {
    index.set(v, index.size)
    low.set(v, index.get(v) as number)
    stack.push(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number))
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number))
    }
    if (low.get(v) !== index.get(v)) return
    const component = stack.splice(stack.indexOf(v))
    if (component.length > 1 || graph.get(v)?.includes(v) === true) cycles.push(component.map((f) => relative(SRC, f)).sort())
  }
  for (const f of files) if (!index.has(f)) visit(f)
  return cycles
}

describe('source tree', () => {
  it('reads the modules it checks', () => {
    expect(files.length).toBeGreaterThan(100)
    expect(runtimeImports(join(SRC, 'agent/agent.ts'))).toContain(join(SRC, 'agent/agent-builder.ts'))
  })

  it('has no runtime import cycle', () => {
    expect(importCycles()).toEqual([])
  })

  it(`keeps every source file within ${MAX_LINES} lines`, () => {
    const long = files.map((f) => [relative(SRC, f), readFileSync(f, 'utf8').split('\n').length - 1] as const).filter(([, lines]) => lines > MAX_LINES)
    expect(long).toEqual([])
  })
})
