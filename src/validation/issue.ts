/** What kind of problem a {@link ValidationIssue} describes; drives the feedback prose. */
export type IssueCode = 'missing_required' | 'invalid_type' | 'invalid_format' | 'unknown_property' | 'invalid_enum' | 'forbidden_key' | 'other'

/**
 * One problem found in a value, normalised from whatever validator found it (TypeBox, a Standard
 * Schema library, a `parse` function).
 */
export interface ValidationIssue {
  /** Rendered path, `items[0].title`; `''` for the root value. */
  readonly path: string
  /** The same path as segments: property names and array indices. */
  readonly segments: readonly (string | number)[]
  readonly code: IssueCode
  /** The validator's own message (used verbatim for `other`). */
  readonly message: string
  /** What was expected: `string`, `number`, `integer`, `array`, `date-time`, `one of "a", "b"`, ... */
  readonly expected?: string
  /** What was found, already rendered for prose: a type name (`number`) or a quoted value (`"USD 50"`). */
  readonly received?: string
}
