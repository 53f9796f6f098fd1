import type { ProviderOutputModes } from './output-mode.ts'
import type { ModelRequest } from './request.ts'
import type { ModelResponse } from './response.ts'
import type { StreamChunk } from './stream-chunk.ts'

/**
 * A model provider. Any object of this shape is a provider: the gate needs nothing else.
 *
 * @example
 * const echo: Provider = { name: 'echo', complete: async (r) => ({ content: r.messages.at(-1)?.content ?? '', toolCalls: [], usage: ZERO_USAGE, stopReason: 'end' }) }
 */
export interface Provider {
  readonly name: string
  /**
   * The model this provider calls unless its gate entry names another (an adapter's configured
   * model). It wins over the gate's or agent's `model` and over `request.model`: see
   * `ProviderEntry.model` for the whole order.
   */
  readonly model?: string
  /**
   * The structured-output modes this provider has (its native schema dialect, a JSON mode), for
   * the gate's `outputMode`. The bundled adapters declare theirs; absent, `outputMode` asks it in
   * `prompt` mode (the schema in the instructions, the gate's validation).
   */
  readonly outputModes?: ProviderOutputModes
  complete(request: ModelRequest): Promise<ModelResponse>
  /** Optional streaming; yields text deltas and ends with a `done` chunk carrying the full response. */
  stream?(request: ModelRequest): AsyncIterable<StreamChunk>
}

/** A {@link Provider} that always streams, as every bundled adapter does. */
export interface StreamingProvider extends Provider {
  stream(request: ModelRequest): AsyncIterable<StreamChunk>
}
