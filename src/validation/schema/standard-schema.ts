// The Standard Schema v1 interface (https://standardschema.dev), declared here rather than added as a
// dependency: it is a structural contract that Zod, Valibot, ArkType and others implement.

/** A path segment of a Standard Schema issue: a key, or an object holding one. */
export interface StandardPathSegment {
  readonly key: PropertyKey
}

/** One problem reported by a Standard Schema validator. */
export interface StandardIssue {
  readonly message: string
  readonly path?: ReadonlyArray<PropertyKey | StandardPathSegment> | undefined
}

/** What a Standard Schema's `validate` answers: the output value, or the issues. */
export type StandardResult<Output> = { readonly value: Output; readonly issues?: undefined } | { readonly issues: ReadonlyArray<StandardIssue> }

/** The static input and output types a Standard Schema carries. */
export interface StandardTypes<Input, Output> {
  readonly input: Input
  readonly output: Output
}

/** The `~standard` property of a Standard Schema. */
export interface StandardProps<Input = unknown, Output = Input> {
  readonly version: 1
  readonly vendor: string
  readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>
  readonly types?: StandardTypes<Input, Output> | undefined
}

/** Any schema implementing Standard Schema v1 (Zod >= 3.24, Valibot >= 1, ArkType, ...). */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardProps<Input, Output>
}
