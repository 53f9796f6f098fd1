import type { SchemaDialect } from '../../model/output-mode.ts'

/** The structured-output dialects `compileProviderSchema` can target (a provider's native schema dialect). */
export type ProviderTarget = SchemaDialect

/** The targets, in a stable order (for loops, reports and the refusal of an unknown target). */
export const PROVIDER_TARGETS: readonly ProviderTarget[] = ['openai-strict', 'anthropic', 'gemini']

/**
 * A constraint of the original schema the compiled schema does not carry (a pattern, a bound, a
 * format, `oneOf` exclusivity...). It stays enforced: the gate validates the mapped-back value
 * against the original schema.
 */
export interface DroppedConstraint {
  /** JSON Pointer of the schema node in the original (after `$ref`s are followed). */
  readonly at: string
  readonly keyword: string
}

/**
 * Where the compiled schema asks for less than the original allows: an open object closed to its
 * declared properties (every target's constrained decoding emits declared properties only), or a
 * node without `type` compiled as the only type its keywords describe. A value of the original
 * outside that shape has no compiled counterpart; every value the provider can produce still maps
 * back to one the original's verdict decides.
 */
export interface Narrowing {
  readonly at: string
  readonly what: 'closed-object' | 'inferred-type'
}

/** A schema compiled for a provider: the schema to send and the exact mapping of values both ways. */
export interface CompiledProviderSchema {
  readonly ok: true
  readonly target: ProviderTarget
  /** The schema to send (JSON Schema for OpenAI and Anthropic, the OpenAPI-3 `responseSchema` for Gemini). */
  readonly schema: Readonly<Record<string, unknown>>
  /** Maps a value the original accepts to the value the compiled schema accepts for it. */
  readonly forward: (value: unknown) => unknown
  /** Maps a provider's answer back to the original's shape (`back(forward(v))` deep-equals `v`). */
  readonly back: (value: unknown) => unknown
  /** Constraints left to the gate's validation of the mapped-back value. */
  readonly dropped: readonly DroppedConstraint[]
  readonly narrowed: readonly Narrowing[]
}

/** A schema the target cannot carry without changing meaning; `at` is the JSON Pointer of the cause. */
export interface UncompilableSchema {
  readonly ok: false
  readonly target: ProviderTarget
  readonly reason: string
  readonly at: string
}

export type ProviderSchemaResult = CompiledProviderSchema | UncompilableSchema

/** Thrown inside the compiler to abandon a compile; becomes an {@link UncompilableSchema}. */
export class Uncompilable extends Error {
  override readonly name = 'Uncompilable'
  readonly reason: string
  readonly at: string
  constructor(reason: string, at: string) {
    super(`${reason} (at ${at === '' ? '#' : at})`)
    this.reason = reason
    this.at = at
  }
}
