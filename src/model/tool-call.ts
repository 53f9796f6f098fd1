/** A tool call requested by the model. `args` is the parsed argument object (or the raw string when it could not be parsed). */
export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly args: unknown
}

/** A tool as offered to the model: its name, description and JSON Schema of the arguments. */
export interface ToolSpec {
  readonly name: string
  readonly description?: string
  readonly inputSchema: Readonly<Record<string, unknown>>
}
