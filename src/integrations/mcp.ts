// The `reliability-gate/mcp` entry: an MCP server's tools as agent tools, validated on the client.
export {
  DEFAULT_MCP_TIMEOUT_MS,
  DEFAULT_SCHEMA_LIMITS,
  isMcpToolError,
  MAX_MCP_ERROR_CHARS,
  McpToolError,
  mcpTools,
  retriesTransport,
} from './mcp/index.ts'
export type {
  McpClient,
  McpRequestOptions,
  McpTool,
  McpToolAnnotations,
  McpToolErrorInit,
  McpToolErrorKind,
  McpToolsOptions,
  SchemaLimits,
} from './mcp/index.ts'
