import { assertObject } from '../../model/argument-checks.ts'
import type { ValidationIssue } from '../../validation/index.ts'

const BRAND = Symbol.for('reliability-gate.McpToolError')

/**
 * What went wrong with an MCP tool, as a literal tag:
 * - `schema-refused`: the server's `inputSchema` or `outputSchema` (or the tool's definition) was
 *   refused before anything was sent (too deep, too large, a remote or cyclic `$ref`, malformed...);
 * - `tool-error`: the server answered the call with `isError: true` (the model reads the text);
 * - `output-invalid`: `structuredContent` does not match the tool's `outputSchema`, or is missing;
 * - `tool-removed`: the server no longer lists the tool (after `notifications/tools/list_changed`);
 * - `list-failed`: `tools/list` failed or answered something that is not a list of tools;
 * - `description-refused`: a content guard (`mcpTools({ contentGuards })`) blocked the tool's
 *   description at listing (instruction-like text: tool poisoning);
 * - `timeout`: a request (`tools/list` or `tools/call`) got no answer within `mcpTools({ timeoutMs })`
 *   (the request was cancelled on the server).
 */
export type McpToolErrorKind = 'schema-refused' | 'tool-error' | 'output-invalid' | 'tool-removed' | 'list-failed' | 'timeout' | 'description-refused'

/** The fields of an {@link McpToolError}. */
export interface McpToolErrorInit {
  readonly kind: McpToolErrorKind
  /** The server's name (as it reports it in `initialize`, or `mcpTools({ serverName })`). */
  readonly server: string
  /** The tool's name as the server lists it; absent for a failure of the whole list. */
  readonly tool?: string | undefined
  readonly message: string
  /** What the output schema said about `structuredContent` (`output-invalid`). */
  readonly issues?: readonly ValidationIssue[] | undefined
  readonly cause?: unknown
}

/**
 * The one error family of `reliability-gate/mcp`. Thrown by {@link mcpTools} for a refused schema,
 * and by a tool's `execute` (so the agent answers the model with an error tool result and reports
 * it in `tool_end`) for `tool-error`, `output-invalid` and `tool-removed`. Check it with
 * {@link isMcpToolError}, which works across copies of the package.
 */
export class McpToolError extends Error {
  readonly [BRAND] = true
  override readonly name = 'McpToolError'
  readonly kind: McpToolErrorKind
  readonly server: string
  readonly tool: string | undefined
  readonly issues: readonly ValidationIssue[]

  constructor(init: McpToolErrorInit) {
    assertObject(init, 'McpToolError: init', '{ kind, server, message, tool?, issues?, cause? }')
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause })
    this.kind = init.kind
    this.server = init.server
    this.tool = init.tool
    this.issues = Object.freeze([...(init.issues ?? [])])
  }
}

/** Whether `value` is an {@link McpToolError} (any copy of the package). */
export function isMcpToolError(value: unknown): value is McpToolError {
  if (typeof value !== 'object' || value === null) return false
  try {
    return (value as Record<symbol, unknown>)[BRAND] === true
  } catch {
    return false
  }
}
