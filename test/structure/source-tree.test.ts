import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SRC, sourceFiles, sourceImports } from '../support/source-imports.ts'

const MAX_LINES = 300
const files = sourceFiles()

/** The modules `file` loads at runtime: type-only imports are erased. */
function runtimeImports(file: string): string[] {
  return sourceImports(file)
    .filter((i) => !i.typeOnly)
    .map((i) => i.to)
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
