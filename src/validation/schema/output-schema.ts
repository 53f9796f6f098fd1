import type { Static, TSchema } from 'typebox'
import type { CompiledSchema } from './compiled-schema.ts'
import type { JsonSchemaKeyword } from './schema-keywords.ts'
import type { StandardSchemaV1 } from './standard-schema.ts'

/** A TypeBox (1.x) schema: TypeBox marks every schema it builds with a `~kind`. */
export type TypeBoxSchema = TSchema & { readonly '~kind': string }

/** Any object with a `parse` function that returns the value or throws (Zod, Yup-style, hand-written). */
export interface ParseSchema<T = unknown> {
  parse(value: unknown): T
}

/**
 * The keywords of a JSON Schema object (drafts 03 to 2020-12, plus OpenAPI's `nullable`,
 * `discriminator` and `example`), all optional: an object sharing none of them is a type error where a
 * schema is expected (`{ orderId: 'string' }` is no JSON Schema: it would accept every value), and
 * `compileSchema` refuses it at run time too. Vendor keys (`x-...`) may sit beside a keyword.
 */
export type JsonSchemaKeywords = { readonly [K in JsonSchemaKeyword]?: unknown }

/**
 * A raw JSON Schema (draft 2020-12 or earlier), validated with TypeBox's compiler: an object of
 * JSON Schema keywords, or the boolean schemas `true` (accept anything) and `false` (accept nothing).
 * A value typed as a record (`Record<string, unknown>`, a schema read from a file) is accepted as it is
 * and checked when compiled.
 */
export type JsonSchemaObject = JsonSchemaKeywords | boolean

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
