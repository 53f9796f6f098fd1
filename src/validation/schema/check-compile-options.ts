import { shownValue, typeName } from '../../model/describe-value.ts'
import { refuseUnknownOptions } from '../../model/known-options.ts'
import type { FormatMode } from './prepare-schema.ts'
import type { SchemaRegistry } from './typebox-adapter.ts'

/** The options {@link checkCompileOptions} knows, as read from the caller's object. */
export interface CheckedCompileOptions {
  readonly registry?: SchemaRegistry
  readonly formats?: FormatMode
  readonly evaluate?: boolean
}

// One checker per option: a new option of `CompileOptions` cannot slip past this table.
const CHECKS: { readonly [K in keyof CheckedCompileOptions]-?: (value: unknown) => string | undefined } = {
  formats: (value) => (value === 'assert' || value === 'annotate' ? undefined : `must be 'assert' or 'annotate', got ${shownValue(value)}`),
  registry: registryProblem,
  evaluate: (value) => (typeof value === 'boolean' ? undefined : `must be a boolean, got ${shownValue(value)}`),
}
const COMPILE_OPTION_KEYS: readonly string[] = Object.keys(CHECKS)

/**
 * The options of `compileSchema`, checked: `undefined` when none were given, else a copy holding
 * only the known options. Anything else is a `TypeError` naming `compileSchema` and the option: options
 * that are no object, an unknown key, a `formats` other than `'assert'`/`'annotate'`, a `registry`
 * that is not a list or a record of schemas, or an options object whose getters throw.
 */
export function checkCompileOptions(options: unknown): CheckedCompileOptions | undefined {
  if (options === undefined) return undefined
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(`compileSchema: options must be an object, got ${typeName(options)}`)
  }
  const out: Record<string, unknown> = {}
  let keys: string[]
  try {
    keys = Object.keys(options)
  } catch {
    throw new TypeError('compileSchema: options cannot be read')
  }
  refuseUnknownOptions(Object.fromEntries(keys.map((key) => [key, true])), COMPILE_OPTION_KEYS, 'compileSchema')
  for (const key of keys) {
    let value: unknown
    let problem: string | undefined
    try {
      value = (options as Record<string, unknown>)[key]
      problem = value === undefined ? undefined : CHECKS[key as keyof CheckedCompileOptions](value)
    } catch {
      throw new TypeError(`compileSchema: options.${key} cannot be read`)
    }
    if (value === undefined) continue
    if (problem !== undefined) throw new TypeError(`compileSchema: options.${key} ${problem}`)
    out[key] = value
  }
  return out as CheckedCompileOptions
}

function registryProblem(value: unknown): string | undefined {
  const expected = 'must be a list of schemas with an $id, or a record of schemas keyed by URI'
  if (typeof value !== 'object' || value === null) return `${expected}, got ${shownValue(value)}`
  const entries = Array.isArray(value) ? value.map((doc, i) => [String(i), doc] as const) : Object.entries(value)
  for (const [key, doc] of entries) {
    const isSchema = typeof doc === 'boolean' || (typeof doc === 'object' && doc !== null && !Array.isArray(doc))
    if (!isSchema || (Array.isArray(value) && typeof doc === 'boolean')) return `${expected}; the entry ${JSON.stringify(key)} is ${typeName(doc)}`
  }
  return undefined
}
