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
    [{ timeoutMs: -1 }, RangeError, 'mcpTools: timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got -1'],
    [{ timeoutMs: 2 ** 31 }, RangeError, 'mcpTools: timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got 2147483648'],
    [{ transportRetries: 1.5 }, RangeError, 'mcpTools: transportRetries must be an integer, 0 or above, got 1.5'],
    [{ limits: { maxDepth: 0 } }, RangeError, 'mcpTools: limits: maxDepth must be an integer, 1 or above, got 0'],
    [{ limits: 'deep' }, TypeError, 'mcpTools: limits: options must be an object, got string'],
    [{ limits: { maxDepht: 3 } }, TypeError, /^mcpTools: limits: unknown option "maxDepht" \(did you mean "maxDepth"\?\)/],
    [{ onRefused: 'ignore' }, TypeError, 'mcpTools: onRefused must be one of "throw", "skip", got "ignore"'],
    [{ filter: 'get_*' }, TypeError, 'mcpTools: filter must be a function, got "get_*"'],
    [{ trustSchemas: 'yes' }, TypeError, 'mcpTools: trustSchemas must be a boolean, got "yes"'],
    [{ serverName: 7 }, TypeError, 'mcpTools: serverName must be a non-empty string, got 7'],
    [{ signal: {} }, TypeError, 'mcpTools: signal must be an AbortSignal, got object'],
    [{ timeoutMS: 100 }, TypeError, /^mcpTools: unknown option "timeoutMS" \(did you mean "timeoutMs"\?\)/],
  ])('refuses the option %j with a typed error naming it', async (options, type, message) => {
    const error = await mcpTools(client, options as never).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(type)
    if (typeof message === 'string') expect((error as Error).message).toBe(message)
    else expect((error as Error).message).toMatch(message)
  })

  it('checks the options before sending any request', async () => {
    let requests = 0
    const counting = { ...client, request: async () => (requests++, { tools: [] }) }
    await expect(mcpTools(counting, { timeoutMS: 100 } as never)).rejects.toThrow(TypeError)
    await expect(mcpTools(counting, { timeoutMs: 2 ** 31 })).rejects.toThrow(RangeError)
    await expect(mcpTools(counting, { limits: { maxNodes: Number.NaN } })).rejects.toThrow(RangeError)
    expect(requests).toBe(0)
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
