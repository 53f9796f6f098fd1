import { nonNegativeInteger, positiveInteger, positiveNumber } from '../../model/assert-number.ts'
import { isRecord } from '../../model/is-record.ts'
import type { McpToolError } from './mcp-tool-error.ts'
import type { McpTool } from './mcp-tool.ts'
import type { McpToolAnnotations } from './prepare-tool.ts'
import { DEFAULT_SCHEMA_LIMITS, type SchemaLimits } from './schema-limits.ts'

/** What {@link mcpTools} takes besides the client. */
export interface McpToolsOptions {
  /** The server's name in errors and tool metadata. @default the `serverInfo.name` the server gave at `initialize` */
  readonly serverName?: string
  /**
   * Compile this server's schemas into code (faster checks). Only for a server you trust as much as
   * your own code: by default schemas are checked by walking them, never turned into code.
   * @default false
   */
  readonly trustSchemas?: boolean
  /** Bounds on each schema the server sends; a tool over them is refused. */
  readonly limits?: SchemaLimits
  /** Only the tools whose name this accepts (called with the server's name for each tool). */
  readonly filter?: (name: string) => boolean
  /**
   * A tool whose definition is refused (see {@link SchemaLimits}): `'throw'` rejects `mcpTools`
   * with an `McpToolError` naming the server and the tool; `'skip'` leaves it out and reports it to `onError`.
   * @default 'throw'
   */
  readonly onRefused?: 'throw' | 'skip'
  /** Milliseconds each MCP request may take (the SDK's own default is 60 s); the run's signal cancels it sooner. */
  readonly timeoutMs?: number
  /**
   * Times a `tools/call` is sent again after a transport failure, for a tool `retryTransport` allows.
   * @default 1
   */
  readonly transportRetries?: number
  /** Whether a tool may be sent again after a transport failure. @default read-only or idempotent tools only */
  readonly retryTransport?: (annotations: McpToolAnnotations) => boolean
  /** Argument retries per logical call of each tool; overrides the agent's `maxToolRetries`. */
  readonly maxRetries?: number
  /**
   * Follow `notifications/tools/list_changed`: list again, update each tool in place, and call
   * `onToolsChanged`. This installs the client's handler of that notification.
   * @default true
   */
  readonly watch?: boolean
  /** Called after each refresh with every tool the server now lists (new ones included: rebuild the agent to offer them). */
  readonly onToolsChanged?: (tools: readonly McpTool[]) => void
  /** Called with a refresh that failed, or a tool `onRefused: 'skip'` left out. */
  readonly onError?: (error: McpToolError) => void
  /** Cancels the initial `tools/list`. */
  readonly signal?: AbortSignal
}

/** The options, checked, with their defaults. */
export interface McpToolsConfig {
  readonly serverName: string | undefined
  readonly trustSchemas: boolean
  readonly limits: Required<SchemaLimits>
  readonly filter: ((name: string) => boolean) | undefined
  readonly onRefused: 'throw' | 'skip'
  readonly timeoutMs: number | undefined
  readonly transportRetries: number
  readonly retryTransport: ((annotations: McpToolAnnotations) => boolean) | undefined
  readonly maxRetries: number | undefined
  readonly watch: boolean
  readonly onToolsChanged: ((tools: readonly McpTool[]) => void) | undefined
  readonly onError: ((error: McpToolError) => void) | undefined
  readonly signal: AbortSignal | undefined
}

const L = 'mcpTools'

/** Checks {@link McpToolsOptions}: a TypeError or RangeError naming the option, never a late surprise. */
export function mcpToolsConfig(options: McpToolsOptions | undefined): McpToolsConfig {
  if (options === undefined) options = {}
  if (!isRecord(options)) throw new TypeError(`${L}: options must be an object`)
  const o = options
  const fn = <F>(key: keyof McpToolsOptions): F | undefined => {
    const v = o[key]
    if (v !== undefined && typeof v !== 'function') throw new TypeError(`${L}: ${key} must be a function`)
    return v as F | undefined
  }
  const bool = (key: keyof McpToolsOptions, fallback: boolean): boolean => {
    const v = o[key]
    if (v !== undefined && typeof v !== 'boolean') throw new TypeError(`${L}: ${key} must be a boolean`)
    return (v as boolean | undefined) ?? fallback
  }
  if (o.serverName !== undefined && typeof o.serverName !== 'string') throw new TypeError(`${L}: serverName must be a string`)
  if (o.onRefused !== undefined && o.onRefused !== 'throw' && o.onRefused !== 'skip') throw new TypeError(`${L}: onRefused must be 'throw' or 'skip'`)
  if (o.signal !== undefined && !(o.signal instanceof AbortSignal)) throw new TypeError(`${L}: signal must be an AbortSignal`)
  const limits = o.limits ?? {}
  if (!isRecord(limits)) throw new TypeError(`${L}: limits must be an object`)
  return {
    serverName: o.serverName,
    trustSchemas: bool('trustSchemas', false),
    limits: {
      maxDepth: positiveInteger(limits.maxDepth, `${L}: limits.maxDepth`, DEFAULT_SCHEMA_LIMITS.maxDepth),
      maxNodes: positiveInteger(limits.maxNodes, `${L}: limits.maxNodes`, DEFAULT_SCHEMA_LIMITS.maxNodes),
      maxChars: positiveInteger(limits.maxChars, `${L}: limits.maxChars`, DEFAULT_SCHEMA_LIMITS.maxChars),
    },
    filter: fn('filter'),
    onRefused: o.onRefused ?? 'throw',
    timeoutMs: o.timeoutMs === undefined ? undefined : positiveNumber(o.timeoutMs, `${L}: timeoutMs`),
    transportRetries: nonNegativeInteger(o.transportRetries, `${L}: transportRetries`, 1),
    retryTransport: fn('retryTransport'),
    maxRetries: o.maxRetries === undefined ? undefined : nonNegativeInteger(o.maxRetries, `${L}: maxRetries`),
    watch: bool('watch', true),
    onToolsChanged: fn('onToolsChanged'),
    onError: fn('onError'),
    signal: o.signal,
  }
}
