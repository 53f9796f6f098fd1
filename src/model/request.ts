import type { Message } from './message.ts'
import type { ToolSpec } from './tool-call.ts'

/** A JSON Schema object, as sent on the wire. */
export type JsonSchema = Readonly<Record<string, unknown>>

/** Everything a provider needs for one model call. */
export interface ModelRequest {
  readonly system?: string
  readonly messages: readonly Message[]
  readonly tools?: readonly ToolSpec[]
  readonly model?: string
  readonly maxTokens?: number
  /** The JSON Schema the final answer must satisfy (for structured-output modes and the simulated model). */
  readonly responseSchema?: JsonSchema
  readonly signal?: AbortSignal
}
