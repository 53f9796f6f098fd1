import { messageOf } from '../../model/message-of.ts'
import { mcpRequest, type McpClient, type McpRequestOptions } from './mcp-client.ts'
import { McpToolError } from './mcp-tool-error.ts'
import { quoted } from './prepare-tool.ts'

/** Pages of `tools/list` followed at most (the v2 client's own cap). */
export const MAX_LIST_PAGES = 64

/**
 * Every entry of `tools/list`, page after page, as the server sent them (not checked yet).
 *
 * @throws McpToolError of kind `list-failed` when a request fails, a page is not a list of tools,
 * or the cursors never end.
 */
export async function listTools(client: McpClient, server: string, options: McpRequestOptions): Promise<unknown[]> {
  const tools: unknown[] = []
  const cursors = new Set<string>()
  let cursor: string | undefined
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    let result: unknown
    try {
      result = await mcpRequest(client, 'tools/list', cursor === undefined ? undefined : { cursor }, options)
    } catch (error) {
      throw failed(server, `tools/list failed: ${messageOf(error)}`, error)
    }
    const list = (result as { tools?: unknown }).tools
    if (!Array.isArray(list)) throw failed(server, 'tools/list answered without a tools array')
    tools.push(...list)
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
