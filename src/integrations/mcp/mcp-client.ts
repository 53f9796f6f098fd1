/**
 * The part of an official MCP SDK `Client` that `mcpTools` uses, in both lines: v1
 * (`@modelcontextprotocol/sdk/client/index.js`) and v2 (`@modelcontextprotocol/client`). Written
 * structurally, so neither package is imported: pass the connected client itself.
 */
export interface McpClient {
  /** Sends a request; both lines take a result schema as the second argument and options as the third. */
  request(...args: never[]): Promise<unknown>
  /** Installs the handler of a notification (v2 takes the method's name, v1 a schema holding it). */
  setNotificationHandler(...args: never[]): unknown
  /** The server's `serverInfo` from `initialize`. */
  getServerVersion(): { readonly name?: string | undefined } | undefined
}

/** The options of one MCP request (both lines): the abort signal cancels it on the server (`notifications/cancelled`). */
export interface McpRequestOptions {
  readonly signal?: AbortSignal
  /** Milliseconds before the SDK gives up (its own default is 60 s). */
  readonly timeout?: number
}

type Request = (request: { method: string; params?: Record<string, unknown> }, schema: ResultShape, options?: McpRequestOptions) => Promise<unknown>

/**
 * A result schema both SDK lines accept in `request()` (a Standard Schema for v2, an object with
 * `safeParse` for v1's Zod 3 path): it only checks that the result is an object, and hands it back
 * untouched. The SDK's own typed calls are avoided on purpose: `listTools()` and `callTool()`
 * compile each tool's `outputSchema` into code (Ajv), and this library treats those schemas as
 * untrusted input.
 */
interface ResultShape {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    validate(value: unknown): { value: unknown } | { issues: readonly { message: string }[] }
  }
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: Error }
}

const RESULT: ResultShape = Object.freeze({
  '~standard': Object.freeze({
    version: 1 as const,
    vendor: 'reliability-gate',
    validate: (value: unknown) => (isObject(value) ? { value } : { issues: [{ message: 'the result is not an object' }] }),
  }),
  safeParse: (value: unknown) =>
    isObject(value) ? { success: true as const, data: value } : { success: false as const, error: new TypeError('the result is not an object') },
})

/** Sends `method` with `params` and answers the raw result object. */
export function mcpRequest(client: McpClient, method: string, params: Record<string, unknown> | undefined, options: McpRequestOptions): Promise<unknown> {
  const request = (client.request as unknown as Request).bind(client)
  return request(params === undefined ? { method } : { method, params }, RESULT, options)
}

export const TOOLS_LIST_CHANGED = 'notifications/tools/list_changed'

/**
 * Installs `handler` for `notifications/tools/list_changed`: v2 takes the method's name; v1 reads
 * the method from a Zod-like schema and parses the notification with it.
 */
export function onToolsListChanged(client: McpClient, handler: () => void): void {
  const set = (client.setNotificationHandler as unknown as (...args: unknown[]) => unknown).bind(client)
  try {
    set(TOOLS_LIST_CHANGED, handler)
    return
  } catch {
    // v1: its first argument is a schema.
  }
  // What v1 reads from a Zod 3 object schema: the method literal, and `safeParse`.
  const schema = { shape: { method: { _def: { value: TOOLS_LIST_CHANGED } } }, safeParse: (value: unknown) => ({ success: true, data: value }) }
  set(schema, handler)
}

/** Whether a thrown error is the transport failing (timeout, closed connection, network), not the server answering with an error. */
export function isTransportFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') return TRANSPORT_CODES.has(code)
  // v1: ConnectionClosed and RequestTimeout; any other JSON-RPC code is the server's answer.
  if (typeof code === 'number') return code === -32000 || code === -32001 || code >= 500
  return true
}

// v2's SdkErrorCode values for a request that never got an answer, and Node's network error codes.
const TRANSPORT_CODES = new Set(['REQUEST_TIMEOUT', 'CONNECTION_CLOSED', 'SEND_FAILED', 'NOT_CONNECTED', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'])

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
