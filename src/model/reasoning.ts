/**
 * Reasoning a model returned with an answer ("extended thinking"), kept so it can be sent back
 * unchanged: Anthropic rejects a tool loop whose assistant turn lost its thinking blocks. Each
 * adapter fills what its wire carries and sends back what its wire accepts; a block that lacks
 * what a wire needs (a signature, for Anthropic) is left out there rather than sent forged.
 *
 * @example
 * { text: 'The order id is in the message…', signature: 'EqQBCgIYAhIM…' }
 */
export interface ReasoningBlock {
  /** What the model thought, as returned ('' for a redacted block). */
  readonly text: string
  /** The provider's proof that the block is its own (Anthropic `signature`); returned unchanged. */
  readonly signature?: string
  /** An encrypted block's opaque data (Anthropic `redacted_thinking.data`); returned unchanged. */
  readonly redactedData?: string
  /** Provider metadata of the block as the AI SDK reports it (`providerMetadata`); returned unchanged. */
  readonly providerMetadata?: Readonly<Record<string, Readonly<Record<string, unknown>>>>
}
