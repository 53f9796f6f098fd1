import type { JsonSchema, ModelRequest } from './request.ts'

/** The line that opens the schema instruction of `json` and `prompt` modes (how a request is known to carry it). */
export const SCHEMA_INSTRUCTION_HEAD = 'Answer with a single JSON value, and nothing else, that satisfies this JSON Schema:'

/** The instruction `json` and `prompt` modes add to the system prompt: the schema, as JSON. */
export function schemaInstruction(schema: JsonSchema): string {
  return `${SCHEMA_INSTRUCTION_HEAD}\n${JSON.stringify(schema)}`
}

/** `system` with the schema instruction after it (once: a system that already carries it is kept). */
export function withSchemaInstruction(system: string | undefined, schema: JsonSchema): string {
  if (system?.includes(SCHEMA_INSTRUCTION_HEAD) === true) return system
  const instruction = schemaInstruction(schema)
  return system === undefined || system === '' ? instruction : `${system}\n\n${instruction}`
}

type MutableRequest = { -readonly [K in keyof ModelRequest]: ModelRequest[K] }

/**
 * A copy of `request` sent in `mode`, one of `json` or `prompt` (a demotion: nothing is compiled):
 * the native schema removed and the schema instruction added to the system prompt. The request
 * itself is never mutated.
 */
export function withLowerMode(request: ModelRequest, mode: 'json' | 'prompt'): ModelRequest {
  const next: MutableRequest = { ...request, outputMode: mode }
  delete next.nativeSchema
  if (request.responseSchema !== undefined) next.system = withSchemaInstruction(request.system, request.responseSchema)
  return next
}
