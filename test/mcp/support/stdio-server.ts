// An MCP server over stdio, in a child process: `node stdio-server.ts v1|v2 [slowFirst]`.
import { StdioServerTransport as StdioV1 } from '@modelcontextprotocol/sdk/server/stdio.js'
import { StdioServerTransport as StdioV2 } from '@modelcontextprotocol/server/stdio'
import { buildServer, newLog, type Line } from './servers.ts'

const line = (process.argv[2] ?? 'v1') as Line
const server = buildServer(line, newLog(), { slowFirst: Number(process.argv[3] ?? 0) })
await server.connect((line === 'v1' ? new StdioV1() : new StdioV2()) as never)
