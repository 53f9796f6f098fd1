/** Bounds on what a server may send as a tool's schema; a schema over any of them is refused. */
export interface SchemaLimits {
  /**
   * Nesting of objects and arrays in the schema document.
   * @default 32
   */
  readonly maxDepth?: number
  /**
   * Objects, arrays and values in the schema document.
   * @default 10000
   */
  readonly maxNodes?: number
  /**
   * Characters of every key and string in the schema document (and the tool's description): what
   * the model is sent on every request.
   * @default 100000
   */
  readonly maxChars?: number
}

/** The defaults of {@link SchemaLimits}. */
export const DEFAULT_SCHEMA_LIMITS: Required<SchemaLimits> = Object.freeze({ maxDepth: 32, maxNodes: 10_000, maxChars: 100_000 })
