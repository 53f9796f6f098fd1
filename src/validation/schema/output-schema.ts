import type { Static, TSchema } from 'typebox'
import type { CompiledSchema } from './compiled-schema.ts'
import type { StandardSchemaV1 } from './standard-schema.ts'

/** A TypeBox (1.x) schema: TypeBox marks every schema it builds with a `~kind`. */
export type TypeBoxSchema = TSchema & { readonly '~kind': string }

/** Any object with a `parse` function that returns the value or throws (Zod, Yup-style, hand-written). */
export interface ParseSchema<T = unknown> {
  parse(value: unknown): T
}

/**
 * A raw JSON Schema (draft 2020-12 or earlier), validated with TypeBox's compiler: an object, or the
 * boolean schemas `true` (accept anything) and `false` (accept nothing).
 */
export type JsonSchemaObject = Readonly<Record<string, unknown>> | boolean

/**
 * Every kind of schema accepted for an output or a tool's input: a TypeBox schema, a Standard
 * Schema (Zod, Valibot, ArkType, ...), an object with a `parse` function, a raw JSON Schema, or a
 * schema already compiled by `compileSchema` (to pass a `registry` or `formats` option).
 */
export type OutputSchema<T = unknown> = TypeBoxSchema | StandardSchemaV1<unknown, T> | ParseSchema<T> | JsonSchemaObject | CompiledSchema<T>

/**
 * The value type a schema produces: `Static<S>` for TypeBox, the output type of a Standard Schema,
 * the return type of `parse`, the type of a compiled schema, and `unknown` for a raw JSON Schema.
 *
 * @example
 * type Refund = InferSchema<typeof RefundSchema>
 */
export type InferSchema<S> = S extends { readonly '~kind': string }
  ? S extends TSchema
    ? Static<S>
    : unknown
  : S extends StandardSchemaV1<infer _I, infer O>
    ? O
    : S extends ParseSchema<infer R>
      ? R
      : S extends CompiledSchema<infer C>
        ? C
        : unknown
