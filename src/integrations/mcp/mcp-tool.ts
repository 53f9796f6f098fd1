import { assertObject } from '../../model/argument-checks.ts'
import type { ToolContext, Tool } from '../../agent/tools/tool.ts'
import type { ToolSpec } from '../../model/tool-call.ts'
import type { CompiledSchema } from '../../validation/index.ts'
import { callResultValue } from './call-result.ts'
import { boundedMcpRequest } from './bounded-request.ts'
import { isTransportFailure, type McpClient } from './mcp-client.ts'
import { McpToolError } from './mcp-tool-error.ts'
import type { McpToolAnnotations, PreparedTool } from './prepare-tool.ts'

/**
 * A tool of an MCP server, made by {@link mcpTools}: an agent tool (`.tools([...])`) named as the
 * server names it, whose arguments the agent validates against the server's `inputSchema` (with
 * the same bounded re-ask as local tools) before `tools/call` is sent. It follows the server's
 * list: after `notifications/tools/list_changed` its description and schemas are the new ones,
 * and a tool the server dropped answers the model with an error.
 */
export interface McpTool extends Tool<unknown, unknown> {
  /** The server's name (`mcpTools({ serverName })`, else the name the server gave itself). */
  readonly server: string
  /**
   * The name you gave the server (`mcpTools({ serverName })`), which guards' `trustedServers` match;
   * `undefined` without one: a name the server gives itself is never trusted (any server can claim one).
   */
  readonly serverName: string | undefined
  /** The server's hints (read-only, destructive, idempotent, open world). */
  readonly annotations: McpToolAnnotations
  /** The compiled `outputSchema`, when the tool declares one: `structuredContent` is validated against it. */
  readonly output: CompiledSchema<unknown> | undefined
  /** False once the server no longer lists the tool. */
  readonly listed: boolean
}

/** What every tool of one server shares. */
export interface McpToolSettings {
  readonly client: McpClient
  readonly server: string
  /** The name the caller gave the server, the only one trusted (see {@link McpTool.serverName}). */
  readonly serverName: string | undefined
  /** Milliseconds each `tools/call` may take (`mcpTools({ timeoutMs })`). */
  readonly timeoutMs: number
  readonly transportRetries: number
  readonly maxRetries: number | undefined
  readonly mayRetry: (annotations: McpToolAnnotations) => boolean
}

/** Where a tool's current definition lives: replaced on a refresh, `undefined` once the server drops it. */
export interface ToolSlot {
  current: PreparedTool | undefined
  /** The last definition, kept for the spec when the tool is dropped. */
  last: PreparedTool
}

/**
 * Whether a call of a tool may be sent again after a transport failure (a timeout, a dropped
 * connection: the server may or may not have run it). Only when running it twice does no harm:
 * the server marks it read-only, or idempotent (`idempotentHint: true`, which a destructive tool
 * such as "delete file X" may be). By the MCP defaults (`destructiveHint: true`,
 * `idempotentHint: false`) an unannotated tool is never sent twice.
 */
export function retriesTransport(annotations: McpToolAnnotations): boolean {
  // No annotations are the MCP defaults: never sent twice.
  if (annotations === undefined) return false
  assertObject(annotations, 'retriesTransport: annotations', "a tool's annotations { readOnlyHint?, idempotentHint?, ... }")
  return annotations.readOnlyHint === true || annotations.idempotentHint === true
}

/** The agent tool over one slot. */
export function mcpTool(slot: ToolSlot, settings: McpToolSettings): McpTool {
  const name = slot.last.name
  const now = () => slot.current ?? slot.last
  const spec: ToolSpec = Object.freeze({
    name,
    get description() {
      return now().description
    },
    get inputSchema() {
      return now().input.jsonSchema ?? { type: 'object' }
    },
  })
  const execute = async (args: unknown, ctx: ToolContext): Promise<unknown> => {
    const tool = slot.current
    if (tool === undefined) {
      throw new McpToolError({ kind: 'tool-removed', server: settings.server, tool: name, message: `the server no longer offers tool '${name}'` })
    }
    const result = await send(settings, tool, args, ctx.signal)
    return callResultValue(result, { server: settings.server, tool: name, output: tool.output })
  }
  return Object.freeze({
    name,
    server: settings.server,
    serverName: settings.serverName,
    get description() {
      return now().description
    },
    get input() {
      return now().input
    },
    get output() {
      return now().output
    },
    get annotations() {
      return now().annotations
    },
    get listed() {
      return slot.current !== undefined
    },
    spec,
    guards: Object.freeze([]),
    maxRetries: settings.maxRetries,
    execute,
  })
}

/**
 * `tools/call` under the tool's `timeoutMs` and the run's signal (either cancels the request on the
 * server), sent again after a transport failure or a timeout as many times as the tool's hints
 * allow; an abort is never retried.
 */
async function send(settings: McpToolSettings, tool: PreparedTool, args: unknown, signal: AbortSignal | undefined): Promise<unknown> {
  const retries = settings.mayRetry(tool.annotations) ? settings.transportRetries : 0
  const request = {
    client: settings.client,
    server: settings.server,
    tool: tool.name,
    method: 'tools/call',
    params: { name: tool.name, arguments: args },
    signal,
    timeoutMs: settings.timeoutMs,
  }
  for (let attempt = 0; ; attempt++) {
    try {
      return await boundedMcpRequest(request)
    } catch (error) {
      if (signal?.aborted === true || attempt >= retries || !isTransportFailure(error)) throw error
    }
  }
}
