import { compileSchema, oneLine, type CompiledSchema } from '../../validation/index.ts'
import { checkRefs } from './check-refs.ts'
import { copySchema } from './copy-schema.ts'
import { McpToolError } from './mcp-tool-error.ts'
import type { SchemaLimits } from './schema-limits.ts'

/** The hints a server gives about a tool (MCP `ToolAnnotations`), as listed; untrusted like the rest. */
export interface McpToolAnnotations {
  readonly title?: string
  readonly readOnlyHint?: boolean
  readonly destructiveHint?: boolean
  readonly idempotentHint?: boolean
  readonly openWorldHint?: boolean
}

/** A tool as the server lists it, checked and copied: the library's own frozen data. */
export interface PreparedTool {
  readonly name: string
  readonly description: string
  /** The arguments' schema, compiled (without generating code unless the server is trusted). */
  readonly input: CompiledSchema<unknown>
  /** The `structuredContent` schema, compiled alike; absent when the tool declares none. */
  readonly output: CompiledSchema<unknown> | undefined
  readonly annotations: McpToolAnnotations
}

/** How a listed tool is checked. */
export interface PrepareContext {
  readonly server: string
  readonly limits: Required<SchemaLimits>
  /** Compile the schemas into code (a trusted server) instead of walking them. */
  readonly evaluate: boolean
}

/** One schema of a listed tool, as {@link prepareTool} compiles it. */
interface ToolSchema {
  readonly tool: string
  readonly field: 'inputSchema' | 'outputSchema'
  /** Characters of the tool's budget (`limits.maxChars`) spent before the schema: its description's. */
  readonly spentChars: number
}

// What `tool()` accepts: the strictest provider's rule for tool names.
const NAME = /^[A-Za-z0-9_-]{1,64}$/

/**
 * Checks one entry of a `tools/list` result and compiles its schemas: the name is one a provider
 * takes, the schemas are plain JSON within the limits, their `$ref`s are local and acyclic, the
 * input schema describes an object, and both compile.
 *
 * @throws McpToolError of kind `schema-refused`, naming the server and the tool.
 */
export function prepareTool(raw: unknown, ctx: PrepareContext): PreparedTool {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw refused(ctx, undefined, 'a listed tool is not an object')
  const entry = raw as Record<string, unknown>
  const name = entry['name']
  if (typeof name !== 'string') throw refused(ctx, undefined, 'a listed tool has no string name')
  if (!NAME.test(name)) throw refused(ctx, name, 'its name is not 1-64 letters, digits, "_" or "-", which providers require')
  const description = entry['description'] ?? ''
  if (typeof description !== 'string') throw refused(ctx, name, 'its description is not a string')
  if (description.length > ctx.limits.maxChars) throw refused(ctx, name, `its description is longer than ${ctx.limits.maxChars} characters (limits.maxChars)`)
  const input = compileFrom(entry['inputSchema'], { tool: name, field: 'inputSchema', spentChars: description.length }, ctx)
  const type = input.jsonSchema?.['type']
  if (type !== 'object') throw refused(ctx, name, `its inputSchema must have type "object", got ${JSON.stringify(type) ?? 'none'}`)
  const output = entry['outputSchema'] === undefined ? undefined : compileFrom(entry['outputSchema'], { tool: name, field: 'outputSchema', spentChars: 0 }, ctx)
  return Object.freeze({ name, description, input, output, annotations: annotationsOf(entry['annotations']) })
}

function compileFrom(schema: unknown, { tool: name, field: which, spentChars }: ToolSchema, ctx: PrepareContext): CompiledSchema<unknown> {
  let copied: ReturnType<typeof copySchema>
  try {
    copied = copySchema(schema, ctx.limits, spentChars)
  } catch (error) {
    throw refused(ctx, name, `its ${which} could not be read`, error)
  }
  if (!copied.ok) throw refused(ctx, name, `its ${which} was refused: ${copied.reason}`)
  const refs = checkRefs(copied.schema, ctx.limits.maxNodes)
  if (refs !== undefined) throw refused(ctx, name, `its ${which} was refused: ${refs}`)
  try {
    return compileSchema(copied.schema, { evaluate: ctx.evaluate })
  } catch (error) {
    throw refused(ctx, name, `its ${which} was refused: ${oneLine(error instanceof Error ? error.message : String(error), 300)}`, error)
  }
}

function annotationsOf(raw: unknown): McpToolAnnotations {
  if (typeof raw !== 'object' || raw === null) return Object.freeze({})
  const source = raw as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const key of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) if (typeof source[key] === 'boolean') out[key] = source[key]
  if (typeof source['title'] === 'string') out['title'] = oneLine(source['title'], 200)
  return Object.freeze(out) as McpToolAnnotations
}

/** The error for a refused tool; the server's and the tool's names are quoted, on one line and bounded. */
export function refused(ctx: { readonly server: string }, tool: string | undefined, reason: string, cause?: unknown): McpToolError {
  const where = tool === undefined ? '' : ` tool ${quoted(tool)}`
  return new McpToolError({
    kind: 'schema-refused',
    server: ctx.server,
    tool,
    message: `mcpTools: server ${quoted(ctx.server)}${where}: ${reason}`,
    cause,
  })
}

/** A name from the server, quoted (JSON escapes: no raw newline or quote) and bounded. */
export function quoted(name: string): string {
  return JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)
}
