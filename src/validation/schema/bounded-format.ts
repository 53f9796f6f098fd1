import type { TypeBoxError } from './typebox-issues.ts'

/** TypeBox's format registry, as a {@link BoundedFormatCheck} tests a value with it. */
export interface FormatModule {
  Test(format: string, value: string): boolean
}

/**
 * Longest string, in UTF-16 units, that each costly format is checked on. TypeBox normalises an
 * `idn-hostname` as a whole and compiles a `regex` (about a second for 6 MB each), and matches an
 * `email` with a regular expression, before any length test. No valid value comes near these bounds
 * (a hostname has at most 253 characters once normalised, an address at most 320), so a longer
 * string fails its format, with an issue saying it was too long to check. The other formats run in
 * time linear in the string (or test its length first, as `hostname` does).
 */
export const FORMAT_MAX_LENGTH: Readonly<Record<string, number>> = {
  email: 320,
  'idn-email': 320,
  'idn-hostname': 1000,
  regex: 10_000,
}

const TOKEN = 'reliability-gate:format#'

// How the issue of a string too long to check begins (see {@link isUncheckedFormat}).
const NOT_CHECKED = 'not checked as format '

/**
 * Whether a format issue's message says its string was too long to check rather than of the wrong
 * format: the feedback then tells the model so, not that its (possibly valid) value is malformed.
 */
export function isUncheckedFormat(message: string): boolean {
  return message.startsWith(NOT_CHECKED)
}
let issued = 0

/**
 * A costly `format` keyword as a TypeBox `~refine` check that tests the string's length before the
 * format itself (TypeBox's own keyword runs the format first, in the check and again in the error
 * walk). Its errors are those TypeBox reports for the keyword (see {@link BoundedFormatCheck.errors}).
 */
export class BoundedFormatCheck {
  /** What this check's TypeBox error carries as its message, to find the check again. */
  readonly token = `${TOKEN}${++issued}`
  readonly check: (value: unknown) => boolean
  readonly error: () => string
  readonly #format: string
  readonly #max: number

  constructor(format: string, max: number, registry: FormatModule) {
    this.#format = format
    this.#max = max
    // TypeBox requires own `check` and `error` functions on a refinement; a format applies to strings only.
    this.check = (value) => typeof value !== 'string' || (value.length <= max && registry.Test(format, value))
    this.error = () => this.token
  }

  /** The `format` error TypeBox would report for the string at `instancePath`, saying when it was too long to check. */
  errors(value: unknown, instancePath: string, schemaPath: string): TypeBoxError[] {
    const long = typeof value === 'string' && value.length > this.#max
    const message = long
      ? `${NOT_CHECKED}"${this.#format}": longer than ${this.#max} characters (${(value as string).length})`
      : `must match format "${this.#format}"`
    return [{ keyword: 'format', schemaPath, instancePath, params: { format: this.#format }, message }]
  }
}
