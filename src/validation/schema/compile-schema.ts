import type { CompiledSchema } from './compiled-schema.ts'
import { assertJsonSchemaShape } from './json-schema-shape.ts'
import type { InferSchema, OutputSchema, ParseSchema } from './output-schema.ts'
import { compileParse } from './parse-adapter.ts'
import { compileStandard } from './standard-adapter.ts'
import type { StandardSchemaV1 } from './standard-schema.ts'
import { compileTypeBox } from './typebox-adapter.ts'

// Compiling is the expensive part (TypeBox generates code); each schema object is compiled once.
const cache = new WeakMap<object, CompiledSchema<unknown>>()

/**
 * Normalises any accepted schema into a {@link CompiledSchema}, compiled once per schema object.
 * Detection order: Standard Schema, TypeBox, `{ parse }`, raw JSON Schema.
 *
 * @throws TypeError when `schema` is none of those; Error when a JSON Schema is malformed.
 * @example
 * const refund = compileSchema(Type.Object({ amount: Type.Number() }))
 * refund.validate({ amount: 'USD 50' }) // { ok: false, issues: [...] }
 */
export function compileSchema<S extends OutputSchema>(schema: S): CompiledSchema<InferSchema<S>>
export function compileSchema<T>(schema: OutputSchema<T>): CompiledSchema<T>
export function compileSchema(schema: unknown): CompiledSchema<unknown> {
  if (typeof schema === 'boolean') return schema ? acceptAll() : rejectAll()
  if ((typeof schema !== 'object' && typeof schema !== 'function') || schema === null) {
    throw new TypeError(`compileSchema expects a TypeBox schema, a Standard Schema, an object with a parse function or a JSON Schema object; received ${describe(schema)}`)
  }
  const cached = cache.get(schema)
  if (cached !== undefined) return cached
  const compiled = compileUncached(schema)
  cache.set(schema, compiled)
  return compiled
}

function compileUncached(schema: object): CompiledSchema<unknown> {
  const standard = (schema as { '~standard'?: { validate?: unknown } })['~standard']
  if (typeof standard === 'object' && standard !== null && typeof standard.validate === 'function') {
    return compileStandard(schema as StandardSchemaV1)
  }
  if ('~kind' in schema) return compileTypeBox(schema, 'typebox')
  if (typeof (schema as { parse?: unknown }).parse === 'function') return compileParse(schema as ParseSchema)
  if (!isPlainObject(schema)) {
    throw new TypeError(`compileSchema expects a TypeBox schema, a Standard Schema, an object with a parse function or a JSON Schema object; received ${describe(schema)}`)
  }
  assertJsonSchemaShape(schema)
  return compileTypeBox(schema, 'json-schema')
}

// Boolean schemas are compiled through their object forms, once, on first use.
let accept: CompiledSchema<unknown> | undefined
let reject: CompiledSchema<unknown> | undefined
const acceptAll = (): CompiledSchema<unknown> => (accept ??= compileTypeBox({}, 'json-schema'))
const rejectAll = (): CompiledSchema<unknown> => (reject ??= compileTypeBox({ not: {} }, 'json-schema'))

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
