import type { IssueCode } from '../issue.ts'

/** A definite violation found while a JSON answer was still streaming. */
export interface StreamViolation {
  /** Rendered path of the offending value, `items[0].title`; `''` for the root. */
  readonly path: string
  readonly segments: readonly (string | number)[]
  readonly code: Extract<IssueCode, 'invalid_type' | 'unknown_property' | 'missing_required' | 'invalid_enum' | 'forbidden_key'>
  /** One line for logs and the `stream_aborted` event. */
  readonly reason: string
  /** Characters of the answer consumed when the violation became definite (end of that chunk). */
  readonly consumedChars: number
}
