import { brand, hasBrand } from '../../model/brand.ts'
import type { CompiledSchema } from './compiled-schema.ts'
import { checkCompileOptions } from './check-compile-options.ts'
import { assertJsonSchemaShape } from './json-schema-shape.ts'
import type { InferSchema, OutputSchema, ParseSchema } from './output-schema.ts'
import { compileParse } from './parse-adapter.ts'
import type { FormatMode } from './prepare-schema.ts'
import { assertSchemaKeywords } from './schema-keywords.ts'
import { compileStandard } from './standard-adapter.ts'
import type { StandardSchemaV1 } from './standard-schema.ts'
import { compileTypeBox, type SchemaRegistry } from './typebox-adapter.ts'

/** How {@link compileSchema} compiles a TypeBox schema or a raw JSON Schema (other kinds ignore these). */
export interface CompileOptions {
  /**
   * Schemas the document may `$ref` by URI: a list of schemas keyed by their absolute `$id`, or a
   * record keyed by the URI they are referenced with (as the JSON-Schema-Test-Suite's remotes).
   * The meta-schemas of draft-03 to 2020-12 resolve without it.
   * @example
   * compileSchema({ $ref: 'https://example.com/money.json' }, { registry: [{ $id: 'https://example.com/money.json', type: 'number' }] })
   */
  readonly registry?: SchemaRegistry
  /**
   * `'assert'` checks `format` (`date-time`, `email`, ...); `'annotate'` ignores it, as JSON Schema
   * 2020-12 does by default. Model output is checked: asserting is the default here.
   * @default 'assert'
   */
  readonly formats?: FormatMode
  /**
   * `false` never turns the schema into code: TypeBox and JSON Schema documents are checked by
   * walking them (TypeBox's `typebox/value` path), for schemas from a source you do not trust (an
   * MCP server's). Same verdicts and issues, slower checks.
   * @default true
   */
  readonly evaluate?: boolean
}

const COMPILED = Symbol.for('reliability-gate.CompiledSchema')

// Compiling is the expensive part (TypeBox generates code); each schema object is compiled once per options.
const cache = new WeakMap<object, Map<string, CompiledSchema<unknown>>>()
const registryIds = new WeakMap<object, number>()
let nextRegistryId = 0

/**
 * Normalises any accepted schema into a {@link CompiledSchema}, compiled once per schema object (and
 * options). Detection order: an already compiled schema (returned as it is), Standard Schema,
 * TypeBox, `{ parse }`, raw JSON Schema. To validate a JSON Schema that `$ref`s other documents,
 * or with `format` as an annotation, compile it with {@link CompileOptions} and hand the result
 * wherever a schema is accepted (`createGate({ outputSchema })`, `tool({ input })`, ...).
 *
 * @throws TypeError when `schema` is none of those (a plain object none of whose keys is a JSON
 * Schema keyword is no JSON Schema), or when an option is unknown or malformed; Error when a JSON Schema is malformed or a
 * pattern cannot run in linear time.
 * @example
 * const refund = compileSchema(Type.Object({ amount: Type.Number() }))
 * refund.validate({ amount: 'USD 50' }) // { ok: false, issues: [...] }
 */
export function compileSchema<S extends OutputSchema>(schema: S, options?: CompileOptions): CompiledSchema<InferSchema<S>>
export function compileSchema<T>(schema: OutputSchema<T> | CompiledSchema<T>, options?: CompileOptions): CompiledSchema<T>
export function compileSchema(schema: unknown, given?: CompileOptions): CompiledSchema<unknown> {
  const options = checkCompileOptions(given)
  if (isCompiledSchema(schema)) return schema
  if (typeof schema === 'boolean') return schema ? acceptAll() : rejectAll()
  if ((typeof schema !== 'object' && typeof schema !== 'function') || schema === null) {
    throw new TypeError(
      `compileSchema expects a TypeBox schema, a Standard Schema, an object with a parse function or a JSON Schema object; received ${describe(schema)}`,
    )
  }
  const key = optionsKey(options)
  let perOptions = cache.get(schema)
  const cached = perOptions?.get(key)
  if (cached !== undefined) return cached
  const compiled = brand(compileUncached(schema, options ?? {}), COMPILED)
  if (perOptions === undefined) cache.set(schema, (perOptions = new Map()))
  perOptions.set(key, compiled)
  return compiled
}

/** Whether a value is a schema {@link compileSchema} compiled (any copy of the package). */
export function isCompiledSchema(value: unknown): value is CompiledSchema<unknown> {
  return hasBrand(value, COMPILED)
}

function compileUncached(schema: object, options: CompileOptions): CompiledSchema<unknown> {
  const standard = (schema as { '~standard'?: { validate?: unknown } })['~standard']
  if (typeof standard === 'object' && standard !== null && typeof standard.validate === 'function') {
    return compileStandard(schema as StandardSchemaV1)
  }
  if ('~kind' in schema) return compileTypeBox(schema, 'typebox', options)
  if (typeof (schema as { parse?: unknown }).parse === 'function') return compileParse(schema as ParseSchema)
  if (!isPlainObject(schema)) {
    throw new TypeError(
      `compileSchema expects a TypeBox schema, a Standard Schema, an object with a parse function or a JSON Schema object; received ${describe(schema)}`,
    )
  }
  assertSchemaKeywords(schema)
  assertJsonSchemaShape(schema)
  return compileTypeBox(schema, 'json-schema', options)
}

function optionsKey(options: CompileOptions | undefined): string {
  if (options === undefined) return ''
  const registry = options.registry
  let id = ''
  if (registry !== undefined) {
    let known = registryIds.get(registry)
    if (known === undefined) registryIds.set(registry, (known = ++nextRegistryId))
    id = String(known)
  }
  return `${options.formats ?? 'assert'}|${id}|${options.evaluate === false ? 'interpret' : 'evaluate'}`
}

// Boolean schemas are compiled through their object forms, once, on first use.
let accept: CompiledSchema<unknown> | undefined
let reject: CompiledSchema<unknown> | undefined
const acceptAll = (): CompiledSchema<unknown> => (accept ??= brand(compileTypeBox({}, 'json-schema'), COMPILED))
const rejectAll = (): CompiledSchema<unknown> => (reject ??= brand(compileTypeBox({ not: {} }, 'json-schema'), COMPILED))

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'function') return `a function (${value.name || 'anonymous'})`
  if (typeof value === 'object') return `an instance of ${(value as object).constructor?.name ?? 'an unknown class'}`
  return `a ${typeof value} (${String(value).slice(0, 40)})`
}
