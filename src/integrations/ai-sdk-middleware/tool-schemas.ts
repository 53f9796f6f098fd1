import type { LanguageModelV4CallOptions } from '@ai-sdk/provider'
import { compileSchema, type CompiledSchema } from '../../validation/index.ts'

const NONE: ReadonlyMap<string, CompiledSchema<unknown>> = new Map()

/**
 * The compiled input schemas of a call's function tools, by name (compiled once per schema
 * object). A tool whose schema does not compile is left to the AI SDK's own checks.
 */
export function toolSchemas(params: LanguageModelV4CallOptions): ReadonlyMap<string, CompiledSchema<unknown>> {
  const tools = params.tools
  if (tools === undefined || tools.length === 0) return NONE
  const schemas = new Map<string, CompiledSchema<unknown>>()
  for (const t of tools) {
    if (t.type !== 'function' || typeof t.inputSchema !== 'object' || t.inputSchema === null) continue
    try {
      schemas.set(t.name, compileSchema(t.inputSchema as Readonly<Record<string, unknown>>))
    } catch {
      // Not a schema the gate can compile: the AI SDK still validates the call.
    }
  }
  return schemas
}
