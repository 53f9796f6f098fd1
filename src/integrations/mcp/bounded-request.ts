import { abortReason } from '../../model/abort-reason.ts'
import { raceAbort } from '../../model/race-abort.ts'
import { mcpRequest, type McpClient } from './mcp-client.ts'
import { isMcpToolError, McpToolError } from './mcp-tool-error.ts'
import { quoted } from './prepare-tool.ts'

/** One MCP request and the bounds it runs under. */
export interface BoundedRequest {
  readonly client: McpClient
  readonly server: string
  /** The tool, for a `tools/call`. */
  readonly tool?: string | undefined
  readonly method: string
  readonly params: Record<string, unknown> | undefined
  /** The caller's signal (the run's, or `mcpTools({ signal })`): cancels the request at once. */
  readonly signal: AbortSignal | undefined
  /** The request's own bound, in milliseconds (below 2^31, checked by `mcpTools`). */
  readonly timeoutMs: number
}

/**
 * Sends one MCP request bounded by `timeoutMs` and the caller's signal, whichever ends first. Both
 * go to the SDK as its request options, so the SDK cancels the request on the server
 * (`notifications/cancelled`); the wait is raced too, so a client that ignores its options cannot
 * hang the caller. An expired bound rejects with an {@link McpToolError} of kind `timeout`; an
 * aborted signal with the gate's abort error (the signal's reason when that is a typed one).
 */
export async function boundedMcpRequest(r: BoundedRequest): Promise<unknown> {
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(timedOut(r)), r.timeoutMs)
  const signal = r.signal === undefined ? deadline.signal : AbortSignal.any([r.signal, deadline.signal])
  try {
    const work = (async () => mcpRequest(r.client, r.method, r.params, { signal, timeout: r.timeoutMs }))()
    return await raceAbort(work, signal, undefined, () => (r.signal?.aborted === true ? abortReason(r.signal) : (deadline.signal.reason as McpToolError)))
  } catch (error) {
    if (r.signal?.aborted === true) throw abortReason(r.signal)
    // The SDK's own timer may fire first (same delay): it is the same expiry.
    if (deadline.signal.aborted || isSdkTimeout(error)) throw isMcpToolError(error) ? error : timedOut(r, error)
    throw error
  } finally {
    clearTimeout(timer)
  }
}

function timedOut(r: BoundedRequest, cause?: unknown): McpToolError {
  const what = r.tool === undefined ? r.method : `${r.method} of tool ${quoted(r.tool)}`
  return new McpToolError({
    kind: 'timeout',
    server: r.server,
    tool: r.tool,
    message: `mcpTools: server ${quoted(r.server)}: ${what} timed out after ${r.timeoutMs} ms (the request was cancelled)`,
    cause,
  })
}

/** The SDK's request timeout: v1's `McpError` code -32001, v2's `REQUEST_TIMEOUT`. */
function isSdkTimeout(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const code = (error as { code?: unknown }).code
  return code === -32001 || code === 'REQUEST_TIMEOUT'
}
