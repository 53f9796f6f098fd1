import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SRC, sourceFiles, sourceImports } from '../support/source-imports.ts'

const MAX_LINES = 300
/** A quoted relative module name: in this tree, only imports and re-exports name one. */
const RELATIVE_SPECIFIER = /['"]\.\.?\/[^'"\n]*\.ts['"]/g
const files = sourceFiles()

/** The modules `file` loads at runtime: type-only imports are erased. */
function runtimeImports(file: string): string[] {
  return sourceImports(file)
    .filter((i) => !i.typeOnly)
    .map((i) => i.to)
}

/** Every module `file` names in an import or re-export, type-only ones included. */
function allImports(file: string): string[] {
  return sourceImports(file).map((i) => i.to)
}

/** Every cycle of the graph `edges` draws over the source files, each as the files of one strongly connected component. */
function importCycles(edges: (file: string) => string[]): string[][] {
  const graph = new Map(files.map((f) => [f, edges(f).filter((to) => files.includes(to))]))
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
  it('reads the modules it checks, telling type-only imports from runtime ones', () => {
    expect(files.length).toBeGreaterThan(100)
    const agent = join(SRC, 'agent/agent.ts')
    expect(runtimeImports(agent)).toContain(join(SRC, 'agent/agent-builder.ts')) // import { createAgentBuilder, type ... }
    expect(runtimeImports(agent)).not.toContain(join(SRC, 'agent/agent-options.ts')) // import type { ... }
    expect(allImports(agent)).toContain(join(SRC, 'agent/agent-options.ts'))
  })

  it('reads every relative module a source file names', () => {
    // A form of import the parser missed (`typeof import('./x.ts')`, say) would hide its edge from the cycle checks.
    const unread = files.flatMap((f) => {
      const named = readFileSync(f, 'utf8').match(RELATIVE_SPECIFIER)?.length ?? 0
      return named === sourceImports(f).length ? [] : [`${relative(SRC, f)}: ${named} named, ${sourceImports(f).length} read`]
    })
    expect(unread).toEqual([])
  })

  it('has no runtime import cycle', () => {
    expect(importCycles(runtimeImports)).toEqual([])
  })

  it('has no import cycle, type-only imports included', () => {
    expect(importCycles(allImports)).toEqual([])
  })

  it(`keeps every source file within ${MAX_LINES} lines`, () => {
    const long = files.map((f) => [relative(SRC, f), readFileSync(f, 'utf8').split('\n').length - 1] as const).filter(([, lines]) => lines > MAX_LINES)
    expect(long).toEqual([])
  })
})
