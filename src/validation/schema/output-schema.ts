import type { Static, TSchema } from 'typebox'
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
 * Schema (Zod, Valibot, ArkType, ...), an object with a `parse` function, or a raw JSON Schema.
 */
export type OutputSchema<T = unknown> = TypeBoxSchema | StandardSchemaV1<unknown, T> | ParseSchema<T> | JsonSchemaObject

/**
 * The value type a schema produces: `Static<S>` for TypeBox, the output type of a Standard Schema,
 * the return type of `parse`, and `unknown` for a raw JSON Schema.
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
      : unknown
