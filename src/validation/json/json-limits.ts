/** Bounds on the JSON text accepted from a model, so hostile output cannot exhaust the process. */
export interface JsonLimits {
  /** Deepest nesting of objects and arrays accepted. @default 256 */
  readonly maxDepth?: number | undefined
  /** Longest text accepted, in UTF-16 code units. @default 4_000_000 */
  readonly maxLength?: number | undefined
}

/** Default for {@link JsonLimits.maxDepth}. */
export const DEFAULT_MAX_DEPTH = 256
/** Default for {@link JsonLimits.maxLength}. */
export const DEFAULT_MAX_LENGTH = 4_000_000
