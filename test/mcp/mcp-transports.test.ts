import { fileURLToPath } from 'node:url'
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio'
import { afterEach, describe, expect, it } from 'vitest'
import { Agent, isReliabilityFailFastError } from '../../src/index.ts'
import { mcpTools, type McpClient, type McpTool } from '../../src/integrations/mcp.ts'
import { scripted } from '../../src/providers/index.ts'
import { httpServer } from './support/http-server.ts'
import { LINES, type Line, type ServerLog } from './support/servers.ts'

const SERVER = fileURLToPath(new URL('./support/stdio-server.ts', import.meta.url))
const CTX = { signal: undefined, callId: 'c', agent: 'a', retryCount: 0 }
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

const call = (name: string, args: unknown) => ({ content: '', toolCalls: [{ id: 'c1', name, args }] })

/** A client of `line` to a stdio server of the same line in a child process. */
async function overStdio(line: Line, slowFirst = 0): Promise<McpClient> {
  const params = { command: process.execPath, args: [SERVER, line, String(slowFirst)], stderr: 'ignore' as const }
  const client = line === 'v1' ? new ClientV1({ name: 'test', version: '1.0.0' }) : new ClientV2({ name: 'test', version: '1.0.0' })
  await client.connect((line === 'v1' ? new StdioV1(params) : new StdioV2(params)) as never)
  closers.push(() => client.close())
  return client
}

/** A client of `line` to the HTTP server on loopback. */
async function overHttp(line: Line, slowFirst = 0): Promise<{ client: McpClient; log: ServerLog }> {
  const server = await httpServer({ slowFirst })
  const client = line === 'v1' ? new ClientV1({ name: 'test', version: '1.0.0' }) : new ClientV2({ name: 'test', version: '1.0.0' })
  await client.connect((line === 'v1' ? new HttpV1(server.url) : new HttpV2(server.url)) as never)
  closers.push(async () => {
    await client.close()
    await server.close()
  })
  return { client, log: server.log }
}

async function serverLog(tools: readonly McpTool[]): Promise<ServerLog> {
  const log = tools.find((t) => t.name === 'server_log') as McpTool
  return JSON.parse((await log.execute({}, CTX)) as string) as ServerLog
}

/** A run that sends invalid arguments first: the server must see only the corrected call. */
async function reaskRun(tools: readonly McpTool[]) {
  const provider = scripted([call('get_weather', { city: 'Oslo', days: 9 }), call('get_weather', { city: 'Oslo', days: 3 }), 'Mild.'])
  const agent = Agent.create({ provider }).tools(tools).build()
  return agent.runDetailed('weather?')
}

describe.each(LINES)('mcpTools over real transports, %s client', (line) => {
  it('validates before sending over stdio, to a server in a child process', async () => {
    const tools = await mcpTools(await overStdio(line))
    const result = await reaskRun(tools)
    expect(result.text).toBe('Mild.')
    expect(result.functionsCalled).toMatchObject([{ status: 'ok', retryCount: 1, result: { celsius: 21 } }])
    expect((await serverLog(tools)).calls).toEqual([{ tool: 'get_weather', args: { city: 'Oslo', days: 3 } }])
  }, 15_000)

  it('cancels the request in the child process when the run is aborted', async () => {
    const tools = await mcpTools(await overStdio(line, 1))
    const agent = Agent.create({ provider: scripted([call('slow', { q: 'x' }), 'never']) })
      .tools(tools)
      .build()
    const controller = new AbortController()
    const run = agent.runDetailed('go', { signal: controller.signal })
    await until(async () => (await serverLog(tools)).calls.length === 1)
    controller.abort()
    const error = await run.catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('aborted')
    await until(async () => (await serverLog(tools)).cancelled.length === 1)
  }, 15_000)

  it('validates before sending over Streamable HTTP on loopback', async () => {
    const { client, log } = await overHttp(line)
    const result = await reaskRun(await mcpTools(client))
    expect(result.functionsCalled).toMatchObject([{ status: 'ok', retryCount: 1, result: { celsius: 21 } }])
    expect(log.calls).toEqual([{ tool: 'get_weather', args: { city: 'Oslo', days: 3 } }])
  }, 15_000)

  it('retries a read-only tool after an HTTP timeout and never a destructive one', async () => {
    const { client, log } = await overHttp(line, 2)
    const tools = await mcpTools(client, { timeoutMs: 300 })
    const slow = tools.find((t) => t.name === 'slow') as McpTool
    const write = tools.find((t) => t.name === 'slow_write') as McpTool
    await expect(Promise.resolve(write.execute({ q: 'w' }, CTX))).rejects.toBeInstanceOf(Error)
    expect(await slow.execute({ q: 'r' }, CTX)).toBe('slow done')
    expect(log.calls.map((c) => c.tool)).toEqual(['slow_write', 'slow', 'slow'])
  }, 15_000)
})

async function until(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 25))
  }
}
