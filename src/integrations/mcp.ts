// The `reliability-gate/mcp` entry: an MCP server's tools as agent tools, validated on the client.
export { DEFAULT_SCHEMA_LIMITS, isMcpToolError, McpToolError, mcpTools, retriesTransport } from './mcp/index.ts'
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
