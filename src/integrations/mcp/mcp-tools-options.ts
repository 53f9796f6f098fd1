import { option, optionsContract } from '../../model/options-contract.ts'
import { assertContentGuards, type ContentGuard } from '../../validation/guards/index.ts'
import type { McpToolError } from './mcp-tool-error.ts'
import type { McpTool } from './mcp-tool.ts'
import type { McpToolAnnotations } from './prepare-tool.ts'
import { DEFAULT_SCHEMA_LIMITS, type SchemaLimits } from './schema-limits.ts'

/** How long one MCP request (`tools/list`, `tools/call`) may take by default: the SDK's own 60 s, now also bounding a server that never answers. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000

/** What {@link mcpTools} takes besides the client. */
export interface McpToolsOptions {
  /**
   * The server's name in errors and tool metadata, and the one content guards' `trustedServers`
   * match: a server without one is never trusted by name (the name a server gives itself at
   * `initialize` could be any). @default the `serverInfo.name` the server gave at `initialize`, for errors and metadata only
   */
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
  /**
   * Milliseconds each MCP request (every page of `tools/list`, each `tools/call`) may take, whole
   * milliseconds from 1 to 2^31-1. When it expires the request is cancelled (the server receives
   * `notifications/cancelled`) and fails with an `McpToolError` of kind `timeout`; the run's signal
   * cancels a call sooner.
   * @default 60000
   */
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
  /**
   * Content guards over each tool's description at listing (surface `mcp-description`), e.g.
   * `instructionGuard()`: a blocked description refuses the tool (`description-refused`), a
   * redaction replaces it. Results are screened by the agent's own `contentGuards`, which see the
   * tool's server and annotations. @default []
   */
  readonly contentGuards?: readonly ContentGuard[]
}

/** The options, checked, with their defaults. */
export interface McpToolsConfig {
  readonly serverName: string | undefined
  readonly trustSchemas: boolean
  readonly limits: Required<SchemaLimits>
  readonly filter: ((name: string) => boolean) | undefined
  readonly onRefused: 'throw' | 'skip'
  readonly timeoutMs: number
  readonly transportRetries: number
  readonly retryTransport: ((annotations: McpToolAnnotations) => boolean) | undefined
  readonly maxRetries: number | undefined
  readonly watch: boolean
  readonly onToolsChanged: ((tools: readonly McpTool[]) => void) | undefined
  readonly onError: ((error: McpToolError) => void) | undefined
  readonly signal: AbortSignal | undefined
  readonly contentGuards: readonly ContentGuard[]
}

/** The contract of {@link SchemaLimits} (`mcpTools({ limits })`). */
export const SCHEMA_LIMITS = optionsContract<SchemaLimits>('mcpTools: limits', {
  maxDepth: option.integer(),
  maxNodes: option.integer(),
  maxChars: option.integer(),
})

/** The contract of {@link McpToolsOptions}. */
export const MCP_TOOLS_OPTIONS = optionsContract<McpToolsOptions>('mcpTools', {
  serverName: option.nonEmptyString(),
  trustSchemas: option.boolean(),
  limits: option.nested(SCHEMA_LIMITS),
  filter: option.function(),
  onRefused: option.oneOf('throw', 'skip'),
  timeoutMs: option.duration(),
  transportRetries: option.integer(0),
  retryTransport: option.function(),
  maxRetries: option.integer(0),
  watch: option.boolean(),
  onToolsChanged: option.function(),
  onError: option.function(),
  signal: option.where('an AbortSignal', (v) => v instanceof AbortSignal),
  contentGuards: option.array(),
})

/** Checks {@link McpToolsOptions}: a TypeError or RangeError naming the option, never a late surprise. */
export function mcpToolsConfig(given: McpToolsOptions | undefined): McpToolsConfig {
  const o = MCP_TOOLS_OPTIONS.check(given)
  const limits = SCHEMA_LIMITS.check(o.limits)
  return {
    serverName: o.serverName,
    trustSchemas: o.trustSchemas ?? false,
    limits: {
      maxDepth: limits.maxDepth ?? DEFAULT_SCHEMA_LIMITS.maxDepth,
      maxNodes: limits.maxNodes ?? DEFAULT_SCHEMA_LIMITS.maxNodes,
      maxChars: limits.maxChars ?? DEFAULT_SCHEMA_LIMITS.maxChars,
    },
    filter: o.filter,
    onRefused: o.onRefused ?? 'throw',
    timeoutMs: o.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS,
    transportRetries: o.transportRetries ?? 1,
    retryTransport: o.retryTransport,
    maxRetries: o.maxRetries,
    watch: o.watch ?? true,
    onToolsChanged: o.onToolsChanged,
    onError: o.onError,
    signal: o.signal,
    contentGuards: o.contentGuards === undefined ? Object.freeze([]) : assertContentGuards(o.contentGuards, 'mcpTools: contentGuards'),
  }
}
