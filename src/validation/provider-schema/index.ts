// Compiling one JSON Schema into each provider's structured-output dialect, with the exact value
// mapping both ways and the list of what stays enforced by the gate.
export { compileProviderSchema } from './compile-provider-schema.ts'
export { PROVIDER_TARGETS } from './types.ts'
export type { CompiledProviderSchema, DroppedConstraint, Narrowing, ProviderSchemaResult, ProviderTarget, UncompilableSchema } from './types.ts'
