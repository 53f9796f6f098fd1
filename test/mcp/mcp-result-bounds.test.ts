import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js'
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server'
import * as z from 'zod'
import { afterEach, describe, expect, it } from 'vitest'
import { Agent } from '../../src/index.ts'
import { MAX_MCP_ERROR_CHARS, mcpTools, type McpTool } from '../../src/integrations/mcp.ts'
import { scripted } from '../../src/providers/index.ts'
import { DEFAULT_MAX_FEEDBACK_CHARS } from '../../src/validation/index.ts'
import { connect, LINES, type Line } from './support/servers.ts'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

const HUGE = 3_000_000
const MARKER = /\n\[…(\d+) characters cut…\]$/

/** A real McpServer of `line` whose `huge_error` answers `isError` with 3 MB of text, and `huge` 3 MB of text. */
async function hugeServer(line: Line) {
  const error = async () => ({ isError: true, content: [{ type: 'text' as const, text: `disk full: ${'d'.repeat(HUGE)}` }] })
  const text = async () => ({ content: [{ type: 'text' as const, text: 't'.repeat(HUGE) }] })
  let server: McpServerV1 | McpServerV2
  if (line === 'v1') {
    const s = new McpServerV1({ name: 'huge', version: '1.0.0' })
    s.registerTool('huge_error', { description: 'Fails loudly', inputSchema: { q: z.string() } }, error)
    s.registerTool('huge', { description: 'Says a lot', inputSchema: { q: z.string() } }, text)
    server = s
  } else {
    const s = new McpServerV2({ name: 'huge', version: '1.0.0' })
    s.registerTool('huge_error', { description: 'Fails loudly', inputSchema: z.object({ q: z.string() }) }, error)
    s.registerTool('huge', { description: 'Says a lot', inputSchema: z.object({ q: z.string() }) }, text)
    server = s
  }
  const { client, close } = await connect(line, server)
  closers.push(close)
  return client
}

const call = (name: string) => ({ content: '', toolCalls: [{ id: 'c1', name, args: { q: 'x' } }] })

describe.each(LINES)('MCP tool results and errors, with a %s client and server', (line) => {
  it('bounds a 3 MB isError text by the feedback budget, with a marker saying how much was cut', async () => {
    const client = await hugeServer(line)
    const provider = scripted([call('huge_error'), 'done'])
    const agent = Agent.create({ provider })
      .tools(await mcpTools(client))
      .build()
    const result = await agent.runDetailed('go')
    const sent = provider.requests[1]?.messages.find((m) => m.role === 'tool')?.content ?? ''
    expect(sent.length).toBeLessThanOrEqual(DEFAULT_MAX_FEEDBACK_CHARS)
    expect(sent.startsWith("TOOL_ERROR: tool 'huge_error' failed: disk full: ddd")).toBe(true)
    expect(sent).toMatch(MARKER)
    expect(result.functionsCalled[0]).toMatchObject({ status: 'execute-failed', error: sent })
    expect(agent.history.find((m) => m.role === 'tool')?.content).toBe(sent)
  })

  it('keeps the McpToolError of a 3 MB isError text bounded too', async () => {
    const client = await hugeServer(line)
    const tool = (await mcpTools(client)).find((t) => t.name === 'huge_error') as McpTool
    const error = await Promise.resolve(tool.execute({ q: 'x' }, { signal: undefined, callId: 'c', agent: 'a', retryCount: 0 })).catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'McpToolError', kind: 'tool-error' })
    const message = (error as Error).message
    expect(message.length).toBeLessThanOrEqual(MAX_MCP_ERROR_CHARS)
    const match = MARKER.exec(message)
    expect(match).not.toBeNull()
    expect((match?.index ?? 0) + Number(match?.[1])).toBe(`disk full: `.length + HUGE)
  })

  it('bounds a 3 MB text result by the feedback budget, and reports the call done', async () => {
    const client = await hugeServer(line)
    const provider = scripted([call('huge'), 'done'])
    const agent = Agent.create({ provider })
      .tools(await mcpTools(client))
      .build()
    const result = await agent.runDetailed('go')
    const sent = provider.requests[1]?.messages.find((m) => m.role === 'tool')?.content ?? ''
    expect(sent.length).toBeLessThanOrEqual(DEFAULT_MAX_FEEDBACK_CHARS)
    expect(Number(MARKER.exec(sent)?.[1])).toBe(HUGE - sent.indexOf('\n[…'))
    expect(result.functionsCalled[0]?.status).toBe('ok')
  })
})
