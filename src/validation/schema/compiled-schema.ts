import type { JsonSchema } from '../../model/request.ts'
import type { ValidationIssue } from '../issue.ts'

/** The verdict of a schema on a value. */
export type SchemaResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: readonly ValidationIssue[] }

/** Which kind of schema a {@link CompiledSchema} came from. */
export type SchemaVendor = 'typebox' | 'standard-schema' | 'json-schema' | 'parse'

/**
 * Any accepted schema, normalised: one `validate` that never throws for a rejected value, and the
 * JSON Schema to send to the provider when one can be derived.
 */
export interface CompiledSchema<T = unknown> {
  readonly vendor: SchemaVendor
  readonly jsonSchema: JsonSchema | undefined
  /** Synchronous for TypeBox, JSON Schema and `parse`; a Standard Schema may answer with a promise. */
  validate(value: unknown): SchemaResult<T> | Promise<SchemaResult<T>>
  /**
   * A cheap accept-only check, where the vendor has one (compiled TypeBox and JSON Schema): `true`
   * means `validate` would accept the value unchanged, with nothing to build; `false` means ask
   * `validate`, which says why.
   */
  readonly test?: ((value: unknown) => boolean) | undefined
  /**
   * Every value the schema accepts holds only keys it declares, none of them `__proto__`,
   * `constructor` or `prototype` (see `declaredKeysOnly`): a value `test` accepts needs no
   * forbidden-key scan.
   */
  readonly declaredKeysOnly?: boolean | undefined
}
