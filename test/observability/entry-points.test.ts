import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src')

/** Every specifier a source file imports at run time (type-only imports left out). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const out: string[] = []
  for (const m of text.matchAll(/^(?:import|export)\s+(?!type\s)([^;]*?)\s+from\s+'([^']+)'/gm)) out.push(m[2] as string)
  for (const m of text.matchAll(/^import\s+'([^']+)'/gm)) out.push(m[1] as string)
  return out
}

/** The source files and packages reachable from `entry` through run-time imports. */
function reach(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (files.has(file)) return
    files.add(file)
    for (const spec of runtimeImports(file)) {
      if (spec.startsWith('.')) visit(join(dirname(file), spec))
      else packages.add(spec)
    }
  }
  visit(join(SRC, entry))
  return { files, packages }
}

describe('Observability entry points', () => {
  it('keeps OpenTelemetry and the trace recorder and viewer out of the main entry', () => {
    const { files, packages } = reach('index.ts')
    expect(files.size).toBeGreaterThan(50)
    expect([...files].map((f) => relative(SRC, f)).filter((f) => f.startsWith('otel/') || f.startsWith('trace/'))).toEqual([])
    expect([...packages].filter((p) => p.startsWith('@opentelemetry/') || p === 'node:fs' || p === 'node:http')).toEqual([])
  })

  it('reaches @opentelemetry/api only from the otel entry', () => {
    expect(reach('otel/index.ts').packages).toContain('@opentelemetry/api')
    expect(reach('trace/index.ts').packages).not.toContain('@opentelemetry/api')
  })
})
