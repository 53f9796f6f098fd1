import { messageOf } from '../../model/message-of.ts'
import { boundedMcpRequest } from './bounded-request.ts'
import type { McpClient } from './mcp-client.ts'
import { isMcpToolError, McpToolError } from './mcp-tool-error.ts'
import { quoted } from './prepare-tool.ts'

/** Pages of `tools/list` followed at most (the v2 client's own cap). */
export const MAX_LIST_PAGES = 64

/**
 * Every entry of `tools/list`, page after page, as the server sent them (not checked yet).
 *
 * Each page is bounded by `timeoutMs` and `signal` (the request is cancelled on the server).
 *
 * @throws McpToolError of kind `list-failed` when a request fails, a page is not a list of tools,
 * or the cursors never end; of kind `timeout` when a page got no answer in time; the gate's abort
 * error when `signal` aborted.
 */
export async function listTools(
  client: McpClient,
  server: string,
  bounds: { readonly signal: AbortSignal | undefined; readonly timeoutMs: number },
): Promise<unknown[]> {
  const tools: unknown[] = []
  const cursors = new Set<string>()
  let cursor: string | undefined
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    let result: unknown
    try {
      const params = cursor === undefined ? undefined : { cursor }
      result = await boundedMcpRequest({ client, server, method: 'tools/list', params, signal: bounds.signal, timeoutMs: bounds.timeoutMs })
    } catch (error) {
      if (isMcpToolError(error) || bounds.signal?.aborted === true) throw error
      throw failed(server, `tools/list failed: ${messageOf(error)}`, error)
    }
    const list = (result as { tools?: unknown }).tools
    if (!Array.isArray(list)) throw failed(server, 'tools/list answered without a tools array')
    // One at a time: spreading a page of a few hundred thousand entries overflows the call stack.
    for (const entry of list) tools.push(entry)
    const next = (result as { nextCursor?: unknown }).nextCursor
    if (next === undefined || next === null) return tools
    if (typeof next !== 'string' || cursors.has(next)) throw failed(server, 'tools/list answered a cursor it had already given, or one that is not a string')
    cursors.add(next)
    cursor = next
  }
  throw failed(server, `tools/list still had more pages after ${MAX_LIST_PAGES}`)
}

function failed(server: string, reason: string, cause?: unknown): McpToolError {
  return new McpToolError({ kind: 'list-failed', server, message: `mcpTools: server ${quoted(server)}: ${reason}`, cause })
}
