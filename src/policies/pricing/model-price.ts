/**
 * Prices of one model in USD per million tokens.
 *
 * Token convention (the one of {@link Usage}): `inputTokens` excludes cached tokens, which are
 * reported separately as `cacheReadTokens` and `cacheWriteTokens` and priced here separately. An
 * adapter whose provider counts cached tokens inside the input total subtracts them first.
 */
export interface ModelPrice {
  /** Uncached input tokens. */
  readonly input: number
  readonly output: number
  /** Tokens read from the prompt cache. @default input */
  readonly cacheRead?: number
  /** Tokens written to the prompt cache. @default input */
  readonly cacheWrite?: number
}

/** Model name to its prices. Empty by default: prices change, so bring your provider's current ones. */
export type PricingTable = Readonly<Record<string, ModelPrice>>
