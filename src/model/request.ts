import type { Message } from './message.ts'
import type { ToolSpec } from './tool-call.ts'

/** A JSON Schema object, as sent on the wire. */
export type JsonSchema = Readonly<Record<string, unknown>>

/** Everything a provider needs for one model call. */
export interface ModelRequest {
  readonly system?: string
  readonly messages: readonly Message[]
  readonly tools?: readonly ToolSpec[]
  /**
   * The model to ask for. Through a gate it is a per-call default: a provider entry's `model` and an
   * adapter's own configured model win over it (it wins over the gate's `model`). Called directly,
   * an adapter uses it before its own configured model.
   */
  readonly model?: string
  readonly maxTokens?: number
  /** The JSON Schema the final answer must satisfy (for structured-output modes and the simulated model). */
  readonly responseSchema?: JsonSchema
  readonly signal?: AbortSignal
}
