import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { compileSchema, type CompiledSchema } from '../../src/validation/building-blocks.ts'
import type { JsonSchemaObject } from '../../src/validation/index.ts'
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
}

function files(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name)
      return statSync(full).isDirectory() ? files(full) : name.endsWith('.json') ? [full] : []
    })
}

/**
 * Runs the official JSON-Schema-Test-Suite for one draft through the raw-JSON-Schema path
 * (`compileSchema(schema).validate(data)`). A test passes when the verdict matches `valid`; a schema
 * that does not compile fails all its tests. Tests under `optional/` are counted apart.
 */
export function runJsonSchemaSuite(draft: 'draft2020-12' | 'draft7'): SuiteResult {
  const root = path.join(CORPORA, 'json-schema-test-suite/tests', draft)
  const required = { passed: 0, total: 0 }
  const optional = { passed: 0, total: 0 }
  const failingGroups: FailingGroup[] = []
  for (const file of files(root)) {
    const rel = path.relative(root, file)
    const count = rel.startsWith('optional') ? optional : required
    for (const group of JSON.parse(readFileSync(file, 'utf8')) as SuiteGroup[]) {
      let compiled: CompiledSchema | undefined
      let compileError: string | undefined
      try {
        compiled = compileSchema(group.schema as JsonSchemaObject)
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
  return { draft, required, optional, failingGroups }
}
