import { messageOf } from '../../model/message-of.ts'
import { type McpClient, onToolsListChanged } from './mcp-client.ts'
import { isMcpToolError, McpToolError } from './mcp-tool-error.ts'
import { mcpTool, retriesTransport, type McpTool, type McpToolSettings, type ToolSlot } from './mcp-tool.ts'
import { type DEFAULT_MCP_TIMEOUT_MS, mcpToolsConfig, type McpToolsConfig, type McpToolsOptions } from './mcp-tools-options.ts'
import { listTools } from './list-tools.ts'
import { prepareTool, type PreparedTool } from './prepare-tool.ts'
import { screenDescription } from './screen-description.ts'

/**
 * The tools of a connected MCP server as agent tools, for `.tools([...])` on the Agent builder,
 * each named as the server names it. Works with a client of either official SDK line (v1
 * `@modelcontextprotocol/sdk`, v2 `@modelcontextprotocol/client`), neither of which this imports.
 *
 * - Arguments are validated against the tool's `inputSchema` before anything is sent, with the
 *   agent's bounded argument re-ask (the feedback is an error tool result, as SEP-1303 asks).
 * - Schemas from a server are untrusted input: they are copied within {@link McpToolsOptions.limits},
 *   their `$ref`s must be local and acyclic, and they are checked by walking them, never compiled
 *   into code (unless `trustSchemas`). A tool whose schema is refused rejects the call with an
 *   `McpToolError` naming the server and the tool (or is skipped, `onRefused: 'skip'`).
 * - A result with `isError` reaches the model as an error tool result; `structuredContent` is
 *   validated against the tool's `outputSchema` (a mismatch fails the call with an `McpToolError`
 *   of kind `output-invalid`, reported in `tool_end`, never passed on).
 * - A transport failure is retried only for a read-only or idempotent tool; the run's signal and
 *   deadline cancel the MCP request (the SDK sends `notifications/cancelled`).
 * - `notifications/tools/list_changed` refreshes every tool in place.
 *
 * - Every request (each page of `tools/list`, each `tools/call`) is bounded by `timeoutMs`
 *   (default {@link DEFAULT_MCP_TIMEOUT_MS}): past it the request is cancelled on the server and
 *   fails with an `McpToolError` of kind `timeout`.
 *
 * @throws TypeError or RangeError for a bad client or option (checked before any request);
 * McpToolError (`list-failed`, `schema-refused`, `timeout`); the gate's abort error (a
 * `ProviderError` of kind `aborted`) when `signal` aborts the listing.
 * @example
 * const client = new Client({ name: 'my-agent', version: '1.0.0' })
 * await client.connect(new StdioClientTransport({ command: 'node', args: ['server.js'] }))
 * const agent = Agent.create({ provider, model: 'some-model' }).tools(await mcpTools(client)).build()
 */
export async function mcpTools(client: McpClient, options?: McpToolsOptions): Promise<readonly McpTool[]> {
  assertClient(client)
  const config = mcpToolsConfig(options)
  const server = config.serverName ?? serverNameOf(client)
  const settings: McpToolSettings = {
    client,
    server,
    serverName: config.serverName,
    timeoutMs: config.timeoutMs,
    transportRetries: config.transportRetries,
    maxRetries: config.maxRetries,
    mayRetry: config.retryTransport ?? retriesTransport,
  }
  const slots = new Map<string, { slot: ToolSlot; tool: McpTool }>()
  for (const prepared of await prepareAll(client, server, config, config.onRefused)) {
    const slot: ToolSlot = { current: prepared, last: prepared }
    slots.set(prepared.name, { slot, tool: mcpTool(slot, settings) })
  }
  if (config.watch) onToolsListChanged(client, refresher(config, settings, slots))
  return Object.freeze([...slots.values()].map((s) => s.tool))
}

/** Lists and prepares every tool; refused ones throw or are skipped and reported. */
async function prepareAll(client: McpClient, server: string, config: McpToolsConfig, onRefused: 'throw' | 'skip'): Promise<PreparedTool[]> {
  const raw = await listTools(client, server, { signal: config.signal, timeoutMs: config.timeoutMs })
  const context = { server, limits: config.limits, evaluate: config.trustSchemas }
  const out: PreparedTool[] = []
  const names = new Set<string>()
  for (const entry of raw) {
    const name = (entry as { name?: unknown } | null)?.name
    if (typeof name === 'string' && config.filter !== undefined && !callQuietly(() => config.filter?.(name) === true)) continue
    try {
      const prepared = await screenDescription(prepareTool(entry, context), { server, serverName: config.serverName }, config.contentGuards, config.signal)
      if (names.has(prepared.name))
        throw new McpToolError({ kind: 'schema-refused', server, tool: prepared.name, message: `mcpTools: server lists tool '${prepared.name}' twice` })
      names.add(prepared.name)
      out.push(prepared)
    } catch (error) {
      if (onRefused === 'throw' || !isMcpToolError(error)) throw error
      callQuietly(() => config.onError?.(error))
    }
  }
  return out
}

/**
 * The `tools/list_changed` handler of the settings' client and server: one refresh at a time (a
 * notification during a refresh runs one more after it); a refused tool is skipped and reported, a
 * failed refresh leaves the tools as they were.
 */
function refresher(config: McpToolsConfig, settings: McpToolSettings, slots: Map<string, { slot: ToolSlot; tool: McpTool }>): () => void {
  const { client, server } = settings
  let running: Promise<void> | undefined
  let again = false
  const refresh = async (): Promise<void> => {
    const listed = await prepareAll(client, server, { ...config, signal: undefined }, 'skip')
    const seen = new Set<string>()
    for (const prepared of listed) {
      seen.add(prepared.name)
      const known = slots.get(prepared.name)
      if (known === undefined) {
        const slot: ToolSlot = { current: prepared, last: prepared }
        slots.set(prepared.name, { slot, tool: mcpTool(slot, settings) })
      } else {
        known.slot.current = prepared
        known.slot.last = prepared
      }
    }
    for (const [name, { slot }] of slots) if (!seen.has(name)) slot.current = undefined
    const tools = Object.freeze([...slots.values()].filter((s) => s.slot.current !== undefined).map((s) => s.tool))
    callQuietly(() => config.onToolsChanged?.(tools))
  }
  const run = (): void => {
    if (running !== undefined) {
      again = true
      return
    }
    running = refresh()
      .catch((error: unknown) => {
        const reported = isMcpToolError(error)
          ? error
          : new McpToolError({ kind: 'list-failed', server, message: `mcpTools: refresh failed: ${messageOf(error)}`, cause: error })
        callQuietly(() => config.onError?.(reported))
      })
      .finally(() => {
        running = undefined
        if (again) {
          again = false
          run()
        }
      })
  }
  return run
}

/** Calls user code; a throw or a rejected thenable is dropped (it must not break the client's notification handling). */
function callQuietly(run: () => unknown): unknown {
  try {
    const out = run()
    if (typeof (out as PromiseLike<unknown> | undefined)?.then === 'function') Promise.resolve(out).catch(() => undefined)
    return out
  } catch {
    return undefined
  }
}

function assertClient(client: unknown): asserts client is McpClient {
  const c = client as Partial<Record<keyof McpClient, unknown>> | null
  if (typeof c !== 'object' || c === null || typeof c.request !== 'function' || typeof c.setNotificationHandler !== 'function') {
    throw new TypeError('mcpTools: expected a connected MCP Client (from @modelcontextprotocol/sdk or @modelcontextprotocol/client)')
  }
}

function serverNameOf(client: McpClient): string {
  try {
    const name = typeof client.getServerVersion === 'function' ? client.getServerVersion()?.name : undefined
    return typeof name === 'string' && name !== '' ? name : 'mcp'
  } catch {
    return 'mcp'
  }
}
