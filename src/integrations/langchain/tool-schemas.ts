import { type CompiledSchema, compileSchema } from '../../validation/index.ts'

/** Compiled tool schemas of one middleware, by tool object; `null` for a tool without one (or one `compileSchema` does not take). */
export type SchemaCache = WeakMap<object, CompiledSchema<unknown> | null>

/** The tool's compiled schema, once per tool; `undefined` for a tool without one (or one `compileSchema` does not take). */
export function schemaOf(tool: unknown, cache: SchemaCache): CompiledSchema<unknown> | undefined {
  if (typeof tool !== 'object' || tool === null) return undefined
  let known = cache.get(tool)
  if (known === undefined) {
    const schema = (tool as { schema?: unknown }).schema
    try {
      known = typeof schema === 'object' && schema !== null ? compileSchema(schema as never) : null
    } catch {
      known = null
    }
    cache.set(tool, known)
  }
  return known ?? undefined
}

/** The compiled schema of every tool of the request that has one, by name. */
export function toolSchemas(tools: readonly unknown[], cache: SchemaCache): Map<string, CompiledSchema<unknown>> {
  const out = new Map<string, CompiledSchema<unknown>>()
  for (const tool of tools) {
    const schema = schemaOf(tool, cache)
    const name = (tool as { name?: unknown }).name
    if (schema !== undefined && typeof name === 'string') out.set(name, schema)
  }
  return out
}
