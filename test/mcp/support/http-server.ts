// An MCP server over Streamable HTTP on loopback (the v1 SDK's Node transport), stateless: each
// request gets a fresh McpServer over one shared log.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { buildServer, newLog, type ServerLog } from './servers.ts'

export async function httpServer(state = { slowFirst: 0 }): Promise<{ url: URL; log: ServerLog; close: () => Promise<void> }> {
  const log = newLog()
  const http: Server = createServer((req, res) => {
    const server = buildServer('v1', log, state)
    const transport = new StreamableHTTPServerTransport({})
    res.on('close', () => {
      void transport.close()
      void server.close()
    })
    void server.connect(transport).then(() => transport.handleRequest(req, res))
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    log,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections()
        http.close(() => resolve())
      }),
  }
}
