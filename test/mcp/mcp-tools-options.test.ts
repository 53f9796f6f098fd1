import { describe, expect, it } from 'vitest'
import { mcpTools } from '../../src/integrations/mcp.ts'

const client = { request: async () => ({ tools: [] }), setNotificationHandler: () => undefined, getServerVersion: () => ({ name: 's' }) }

describe('mcpTools: bad input', () => {
  it.each([
    ['null', null],
    ['a string', 'client'],
    ['an object without request', { setNotificationHandler: () => undefined }],
  ])('refuses %s as the client with a TypeError naming mcpTools', async (_what, value) => {
    await expect(mcpTools(value as never)).rejects.toThrow(
      new TypeError('mcpTools: expected a connected MCP Client (from @modelcontextprotocol/sdk or @modelcontextprotocol/client)'),
    )
  })

  it.each([
    [{ timeoutMs: -1 }, RangeError, 'mcpTools: timeoutMs must be a positive number, got -1'],
    [{ transportRetries: 1.5 }, RangeError, 'mcpTools: transportRetries must be a non-negative integer, got 1.5'],
    [{ limits: { maxDepth: 0 } }, RangeError, 'mcpTools: limits.maxDepth must be a positive integer, got 0'],
    [{ limits: 'deep' }, TypeError, 'mcpTools: limits must be an object'],
    [{ onRefused: 'ignore' }, TypeError, "mcpTools: onRefused must be 'throw' or 'skip'"],
    [{ filter: 'get_*' }, TypeError, 'mcpTools: filter must be a function'],
    [{ trustSchemas: 'yes' }, TypeError, 'mcpTools: trustSchemas must be a boolean'],
    [{ serverName: 7 }, TypeError, 'mcpTools: serverName must be a string'],
    [{ signal: {} }, TypeError, 'mcpTools: signal must be an AbortSignal'],
  ])('refuses the option %j with a typed error naming it', async (options, type, message) => {
    const error = await mcpTools(client, options as never).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(type)
    expect((error as Error).message).toBe(message)
  })

  it('reports a throwing filter as not matching, and keeps going', async () => {
    const listing = { ...client, request: async () => ({ tools: [{ name: 'a', inputSchema: { type: 'object' } }] }) }
    const tools = await mcpTools(listing, {
      filter: () => {
        throw new Error('boom')
      },
    })
    expect(tools).toEqual([])
  })

  it('answers a client whose request rejects with a typed list failure naming the server', async () => {
    const failing = { ...client, request: async () => Promise.reject(new Error('ECONNREFUSED')) }
    await expect(mcpTools(failing)).rejects.toMatchObject({
      name: 'McpToolError',
      kind: 'list-failed',
      server: 's',
      message: 'mcpTools: server "s": tools/list failed: ECONNREFUSED',
    })
  })
})
