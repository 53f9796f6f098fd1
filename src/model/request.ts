import type { Message } from './message.ts'
import type { OutputMode } from './output-mode.ts'
import type { ToolSpec } from './tool-call.ts'
import type { ToolChoice } from './tool-choice.ts'

/** A JSON Schema object, as sent on the wire. */
export type JsonSchema = Readonly<Record<string, unknown>>

/** Everything a provider needs for one model call. */
export interface ModelRequest {
  readonly system?: string
  readonly messages: readonly Message[]
  readonly tools?: readonly ToolSpec[]
  /**
   * Whether the model must call a tool: `'auto'` (the provider's default when absent), `'none'`,
   * `'required'` (some tool), or `{ tool: name }` (that tool, which must be one of `tools`). The
   * agent pins it to a tool itself for one re-ask when the model answers in prose after that
   * tool's arguments were rejected.
   */
  readonly toolChoice?: ToolChoice
  /**
   * The model to ask for. Through a gate it is a per-call default: a provider entry's `model` and an
   * adapter's own configured model win over it (it wins over the gate's `model`). Called directly,
   * an adapter uses it before its own configured model.
   */
  readonly model?: string
  readonly maxTokens?: number
  /** The JSON Schema the final answer must satisfy (for structured-output modes and the simulated model). */
  readonly responseSchema?: JsonSchema
  /**
   * How the answer's structure is asked of the provider (see {@link OutputMode}); per request, over
   * the gate's `outputMode`. A gate sends each provider the mode it settled on (`'native'`, `'json'`
   * or `'prompt'`, never `'auto'`); absent, each adapter sends `responseSchema` as its own options say.
   */
  readonly outputMode?: OutputMode
  /**
   * The schema sent in the provider's native mode: `responseSchema` compiled for that provider by
   * the gate (`compileProviderSchema`), whose answers the gate maps back before validating them.
   * Adapters send it in place of `responseSchema` when `outputMode` is `'native'`.
   */
  readonly nativeSchema?: JsonSchema
  readonly signal?: AbortSignal
}
