import { afterEach, describe, expect, it } from 'vitest'
import { Agent, isReliabilityFailFastError } from '../../src/index.ts'
import { isMcpToolError, mcpTools, type McpTool } from '../../src/integrations/mcp.ts'
import { scripted } from '../../src/providers/index.ts'
import { buildServer, connect, LINES, newLog, type Line } from './support/servers.ts'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

async function setup(line: Line, state = { slowFirst: 0 }) {
  const log = newLog()
  const server = buildServer(line, log, state)
  const { client, close } = await connect(line, server)
  closers.push(close)
  return { log, server, client }
}

const CTX = { signal: undefined, callId: 'c', agent: 'a', retryCount: 0 }
const call = (name: string, args: unknown, id = 'c1') => ({ content: '', toolCalls: [{ id, name, args }] })
const toolMessages = (provider: ReturnType<typeof scripted>, at: number) => provider.requests[at]?.messages.filter((m) => m.role === 'tool') ?? []

describe.each(LINES)('mcpTools with a %s client', (line) => {
  it('offers every tool of the server, named as the server names it, with its input schema', async () => {
    const { client } = await setup(line)
    const tools = await mcpTools(client)
    expect(tools.map((t) => t.name)).toEqual(['get_weather', 'fail', 'bad_output', 'no_output', 'slow', 'slow_write', 'echo', 'server_log'])
    const weather = tools[0] as McpTool
    expect(weather.server).toBe('weather')
    expect(weather.spec).toMatchObject({ name: 'get_weather', description: 'Weather for a city' })
    expect(weather.spec.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city', 'days'],
    })
    expect(weather.annotations).toEqual({ readOnlyHint: true })
  })

  it('re-asks the model on invalid arguments and sends the server only the corrected call', async () => {
    const { client, log } = await setup(line)
    const provider = scripted([call('get_weather', { city: 'Oslo', days: 'two' }), call('get_weather', { city: 'Oslo', days: 2 }), 'It is 21°C.'])
    const agent = Agent.create({ provider })
      .tools(await mcpTools(client))
      .build()
    const result = await agent.runDetailed('weather in Oslo?')
    expect(result.text).toBe('It is 21°C.')
    expect(log.calls).toEqual([{ tool: 'get_weather', args: { city: 'Oslo', days: 2 } }])
    // The re-ask carried the feedback as an error tool result, in the ephemeral tail.
    const feedback = toolMessages(provider, 1)
    expect(feedback).toHaveLength(1)
    expect(feedback[0]).toMatchObject({ isError: true, ephemeral: true, toolName: 'get_weather' })
    expect(feedback[0]?.content).toContain("'days'")
    expect(result.functionsCalled).toMatchObject([{ name: 'get_weather', status: 'ok', retryCount: 1, outcome: 'success', result: { celsius: 21 } }])
  })

  it('never calls the server when the arguments stay invalid', async () => {
    const { client, log } = await setup(line)
    // Different invalid arguments each time: the same ones twice in a row would stop as a stuck loop.
    const provider = scripted([call('get_weather', { city: 42 }), call('get_weather', { city: 43 }), call('get_weather', { city: 44 }), 'gave up'])
    const agent = Agent.create({ provider })
      .tools(await mcpTools(client))
      .build()
    const result = await agent.runDetailed('weather?')
    expect(log.calls).toEqual([])
    expect(result.functionsCalled).toMatchObject([{ status: 'invalid-args', outcome: 'exhausted' }])
  })

  it('hands the model an isError result as an error tool result', async () => {
    const { client } = await setup(line)
    const provider = scripted([call('fail', { q: 'open?' }), 'Closed today.'])
    const agent = Agent.create({ provider })
      .tools(await mcpTools(client))
      .build()
    const result = await agent.runDetailed('is it open?')
    expect(toolMessages(provider, 1)).toMatchObject([{ isError: true, content: "TOOL_ERROR: tool 'fail' failed: the warehouse is closed on Sundays" }])
    expect(result.functionsCalled).toMatchObject([{ status: 'execute-failed' }])
  })

  it('reports structuredContent that breaks the outputSchema as a typed failure, never passing it on', async () => {
    const { client } = await setup(line)
    const provider = scripted([call('bad_output', { q: 'x' }), 'ok'])
    const agent = Agent.create({ provider })
      .tools(await mcpTools(client))
      .build()
    const ends: unknown[] = []
    agent.on('tool_end', (e) => ends.push(e))
    const result = await agent.runDetailed('go')
    expect(result.functionsCalled).toMatchObject([{ status: 'execute-failed', result: undefined }])
    expect(result.functionsCalled[0]?.error).toContain('does not match its outputSchema')
    expect(result.functionsCalled[0]?.error).toContain("'celsius': expected number")
    expect(ends).toMatchObject([{ tool: 'bad_output', status: 'execute-failed' }])
  })

  it('throws McpToolError output-invalid from execute when an outputSchema tool sends no structuredContent', async () => {
    const { client } = await setup(line)
    const tool = (await mcpTools(client)).find((t) => t.name === 'no_output') as McpTool
    const error = await Promise.resolve(tool.execute({ q: 'x' }, CTX)).catch((e: unknown) => e)
    expect(isMcpToolError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'output-invalid', server: 'weather', tool: 'no_output' })
  })

  it('returns the validated structuredContent of a tool with an outputSchema', async () => {
    const { client } = await setup(line)
    const tool = (await mcpTools(client)).find((t) => t.name === 'get_weather') as McpTool
    expect(await tool.execute({ city: 'Oslo', days: 1 }, CTX)).toEqual({ celsius: 21 })
  })

  it('cancels the MCP request when the run is aborted', async () => {
    const { client, log } = await setup(line, { slowFirst: 1 })
    const provider = scripted([call('slow', { q: 'x' }), 'never'])
    const agent = Agent.create({ provider })
      .tools(await mcpTools(client))
      .build()
    const controller = new AbortController()
    const run = agent.runDetailed('go', { signal: controller.signal })
    await until(() => log.calls.length === 1)
    controller.abort(new Error('user left'))
    const error = await run.catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('aborted')
    await until(() => log.cancelled.length === 1)
    expect(log.cancelled).toEqual(['slow'])
  }, 4_000)

  it('sends a read-only tool again after a transport timeout', async () => {
    const { client, log } = await setup(line, { slowFirst: 1 })
    const slow = (await mcpTools(client, { timeoutMs: 150 })).find((t) => t.name === 'slow') as McpTool
    expect(await slow.execute({ q: 'x' }, CTX)).toBe('slow done')
    expect(log.calls.map((c) => c.tool)).toEqual(['slow', 'slow'])
  }, 4_000)

  it('never sends a destructive, non-idempotent tool twice: the timeout is its answer', async () => {
    const { client, log } = await setup(line, { slowFirst: 1 })
    const write = (await mcpTools(client, { timeoutMs: 150 })).find((t) => t.name === 'slow_write') as McpTool
    expect(write.annotations).toEqual({ destructiveHint: true })
    const error = await Promise.resolve(write.execute({ q: 'x' }, CTX)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(String((error as Error).message)).toMatch(/time/i)
    expect(log.calls.map((c) => c.tool)).toEqual(['slow_write'])
  }, 4_000)

  it('follows tools/list_changed: updates a tool in place, drops a removed one, reports new ones', async () => {
    const { client, server } = await setup(line)
    const changes: (readonly McpTool[])[] = []
    const tools = await mcpTools(client, { onToolsChanged: (t) => changes.push(t) })
    const echo = tools.find((t) => t.name === 'echo') as McpTool
    const fail = tools.find((t) => t.name === 'fail') as McpTool
    const registered = (server as unknown as { _registeredTools: Record<string, { remove(): void }> })._registeredTools
    registered['fail']?.remove()
    await until(() => changes.length > 0)
    ;(server as unknown as { registerTool(name: string, config: object, run: () => unknown): void }).registerTool(
      'late',
      { description: 'Added later' },
      async () => ({
        content: [{ type: 'text', text: 'late' }],
      }),
    )
    await until(() => changes.at(-1)?.some((t) => t.name === 'late') === true)
    expect(fail.listed).toBe(false)
    expect(echo.listed).toBe(true)
    const error = await Promise.resolve(fail.execute({ q: 'x' }, CTX)).catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'tool-removed', tool: 'fail' })
    expect(changes.at(-1)?.map((t) => t.name)).not.toContain('fail')
  })

  it('follows tools/list_changed: a tool the server updates is checked against its new description and schema', async () => {
    const { client, server } = await setup(line)
    const changes: (readonly McpTool[])[] = []
    const tools = await mcpTools(client, { onToolsChanged: (t) => changes.push(t) })
    const echo = tools.find((t) => t.name === 'echo') as McpTool
    const registered = (server as unknown as { _registeredTools: Record<string, { update(u: object): void }> })._registeredTools
    registered['echo']?.update({ description: 'Echoes, louder' })
    await until(() => changes.length > 0)
    expect(echo.description).toBe('Echoes, louder')
    expect(echo.spec.description).toBe('Echoes, louder')
  })
})

async function until(check: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 10))
  }
}
