import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { compileSchema, type CompiledSchema } from '../../src/validation/building-blocks.ts'
import type { CompileOptions, JsonSchemaObject } from '../../src/validation/index.ts'
import { CORPORA } from '../support/corpora.ts'

interface SuiteGroup {
  readonly description: string
  readonly schema: unknown
  readonly tests: readonly { readonly description: string; readonly data: unknown; readonly valid: boolean }[]
}

export interface PassCount {
  readonly passed: number
  readonly total: number
}

export interface FailingGroup {
  readonly file: string
  readonly group: string
  readonly failed: number
  readonly total: number
  /** Set when the schema did not compile (every test of the group then fails). */
  readonly compileError?: string
}

export interface SuiteResult {
  readonly draft: string
  readonly required: PassCount
  readonly optional: PassCount
  readonly failingGroups: readonly FailingGroup[]
  /** Remote documents registered (`http://localhost:1234/...`, from the suite's `remotes/`). */
  readonly remotes: number
}

const SUITE = path.join(CORPORA, 'json-schema-test-suite')

function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name)
      return statSync(full).isDirectory() ? files(full) : name.endsWith('.json') ? [full] : []
    })
}

/**
 * The suite's remote documents, as its README asks: each file under `remotes/` at
 * `http://localhost:1234/<its path>`.
 */
export function suiteRemotes(): Record<string, JsonSchemaObject> {
  const root = path.join(SUITE, 'remotes')
  const out: Record<string, JsonSchemaObject> = {}
  for (const file of files(root))
    out[`http://localhost:1234/${path.relative(root, file).split(path.sep).join('/')}`] = JSON.parse(readFileSync(file, 'utf8')) as JsonSchemaObject
  return out
}

/**
 * Runs the official JSON-Schema-Test-Suite for one draft through the raw-JSON-Schema path
 * (`compileSchema(schema, { registry }).validate(data)`), with the suite's remotes registered. A
 * test passes when the verdict matches `valid`; a schema that does not compile fails all its tests.
 * Tests under `optional/` are counted apart. Each file runs with the `format` behaviour it assumes:
 * the required `format.json` with `format` as an annotation (the specification's default), the
 * optional `format/` files with `format` asserted (the library's default for model output).
 */
export function runJsonSchemaSuite(draft: 'draft2020-12' | 'draft7'): SuiteResult {
  const root = path.join(SUITE, 'tests', draft)
  const registry = suiteRemotes()
  const required = { passed: 0, total: 0 }
  const optional = { passed: 0, total: 0 }
  const failingGroups: FailingGroup[] = []
  for (const file of files(root)) {
    const rel = path.relative(root, file)
    const count = rel.startsWith('optional') ? optional : required
    const options: CompileOptions = { registry, formats: rel === 'format.json' ? 'annotate' : 'assert' }
    for (const group of JSON.parse(readFileSync(file, 'utf8')) as SuiteGroup[]) {
      let compiled: CompiledSchema | undefined
      let compileError: string | undefined
      try {
        compiled = compileSchema(group.schema as JsonSchemaObject, options)
      } catch (error) {
        compileError = (error as Error).message.slice(0, 160)
      }
      let failed = 0
      for (const test of group.tests) {
        count.total++
        let ok = false
        if (compiled !== undefined) {
          const verdict = compiled.validate(test.data)
          // The raw-JSON-Schema path is synchronous; a promise here would be a bug worth seeing.
          ok = !(verdict instanceof Promise) && verdict.ok === test.valid
        }
        if (ok) count.passed++
        else failed++
      }
      if (failed > 0) {
        failingGroups.push({ file: rel, group: group.description, failed, total: group.tests.length, ...(compileError !== undefined ? { compileError } : {}) })
      }
    }
  }
  return { draft, required, optional, failingGroups, remotes: Object.keys(registry).length }
}
