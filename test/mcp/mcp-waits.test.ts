import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { McpServer as McpServerV2 } from '@modelcontextprotocol/server'
import * as z from 'zod'
import { afterEach, describe, expect, it } from 'vitest'
import { Agent, isReliabilityFailFastError } from '../../src/index.ts'
import { isMcpToolError, mcpTools, type McpTool } from '../../src/integrations/mcp.ts'
import { scripted } from '../../src/providers/index.ts'
import { connect, LINES, type Line } from './support/servers.ts'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

/** What a hanging server saw: the requests it got, and the ones whose signal the client's cancellation aborted. */
interface HangLog {
  started: string[]
  cancelled: string[]
}

/** A promise that never settles, but notes when the request's signal aborts (the server got `notifications/cancelled`). */
function hang(log: HangLog, what: string, signal: AbortSignal | undefined): Promise<never> {
  log.started.push(what)
  signal?.addEventListener('abort', () => log.cancelled.push(what), { once: true })
  return new Promise<never>(() => undefined)
}

type Extra = { signal?: AbortSignal; mcpReq?: { signal?: AbortSignal } } | undefined
const signalOf = (extra: Extra): AbortSignal | undefined => extra?.signal ?? extra?.mcpReq?.signal

/** A real McpServer of `line` with one tool, `stuck`, whose handler never resolves, and optionally a tools/list that never answers. */
async function hangingServer(line: Line, options: { listHangs?: boolean } = {}) {
  const log: HangLog = { started: [], cancelled: [] }
  let server: McpServerV1 | McpServerV2
  if (line === 'v1') {
    const s = new McpServerV1({ name: 'stuck', version: '1.0.0' })
    s.registerTool('stuck', { description: 'Never answers', inputSchema: { q: z.string() } }, (_a, extra) => hang(log, 'stuck', extra.signal))
    if (options.listHangs === true) s.server.setRequestHandler(ListToolsRequestSchema, (_r, extra) => hang(log, 'tools/list', extra.signal))
    server = s
  } else {
    const s = new McpServerV2({ name: 'stuck', version: '1.0.0' })
    s.registerTool('stuck', { description: 'Never answers', inputSchema: z.object({ q: z.string() }) }, (_a: unknown, ctx) =>
      hang(log, 'stuck', ctx.mcpReq.signal),
    )
    if (options.listHangs === true) {
      const low = s.server as unknown as { setRequestHandler(method: string, handler: (r: unknown, extra: Extra) => unknown): void }
      low.setRequestHandler('tools/list', (_r, extra) => hang(log, 'tools/list', signalOf(extra)))
    }
    server = s
  }
  const { client, close } = await connect(line, server)
  closers.push(close)
  return { client, log }
}

async function until(check: () => boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 10))
  }
}

const call = (name: string, args: unknown) => ({ content: '', toolCalls: [{ id: 'c1', name, args }] })

describe.each(LINES)('mcpTools waits, with a %s client and server', (line) => {
  it('rejects a tools/list that never answers with a timeout McpToolError after timeoutMs, and cancels it on the server', async () => {
    const { client, log } = await hangingServer(line, { listHangs: true })
    const error = await mcpTools(client, { timeoutMs: 50 }).catch((e: unknown) => e)
    expect(isMcpToolError(error)).toBe(true)
    expect(error).toMatchObject({ name: 'McpToolError', kind: 'timeout', server: 'stuck' })
    expect((error as Error).message).toBe('mcpTools: server "stuck": tools/list timed out after 50 ms (the request was cancelled)')
    await until(() => log.cancelled.length === 1)
    expect(log.cancelled).toEqual(['tools/list'])
  })

  it('cancels a tools/list that never answers when the mcpTools signal aborts', async () => {
    const { client, log } = await hangingServer(line, { listHangs: true })
    const controller = new AbortController()
    const listing = mcpTools(client, { signal: controller.signal }).catch((e: unknown) => e)
    await until(() => log.started.length === 1)
    controller.abort(new Error('shutting down'))
    const error = await listing
    expect(error).toMatchObject({ kind: 'aborted' })
    await until(() => log.cancelled.length === 1)
  })

  it('fails a tools/call whose handler never resolves with a timeout McpToolError, and the server sees the cancellation', async () => {
    const { client, log } = await hangingServer(line)
    const stuck = (await mcpTools(client, { timeoutMs: 50 })).find((t) => t.name === 'stuck') as McpTool
    const error = await Promise.resolve(stuck.execute({ q: 'x' }, { signal: undefined, callId: 'c', agent: 'a', retryCount: 0 })).catch((e: unknown) => e)
    expect(error).toMatchObject({ name: 'McpToolError', kind: 'timeout', server: 'stuck', tool: 'stuck' })
    await until(() => log.cancelled.length === 1)
    expect(log.cancelled).toEqual(['stuck'])
  })

  it('answers the model with the timeout and goes on when an MCP tool never settles within timeoutMs', async () => {
    const { client, log } = await hangingServer(line)
    const provider = scripted([call('stuck', { q: 'x' }), 'answered without it'])
    const agent = Agent.create({ provider })
      .tools(await mcpTools(client, { timeoutMs: 50 }))
      .build()
    const result = await agent.runDetailed('go')
    expect(result.text).toBe('answered without it')
    expect(result.functionsCalled).toMatchObject([{ name: 'stuck', status: 'execute-failed' }])
    expect(result.functionsCalled[0]?.error).toContain('timed out after 50 ms')
    await until(() => log.cancelled.length === 1)
  })

  it('ends the run as aborted when its signal aborts an MCP call that never settles, and cancels the request on the server', async () => {
    const { client, log } = await hangingServer(line)
    const provider = scripted([call('stuck', { q: 'x' }), 'never'])
    const agent = Agent.create({ provider })
      .tools(await mcpTools(client))
      .build()
    const controller = new AbortController()
    const run = agent.runDetailed('go', { signal: controller.signal })
    await until(() => log.started.length === 1)
    controller.abort(new Error('user left'))
    const error = await run.catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error) && error.kind).toBe('aborted')
    await until(() => log.cancelled.length === 1)
    expect(log.cancelled).toEqual(['stuck'])
  })
})

describe('mcpTools waits, with a client that ignores its request options', () => {
  const deaf = {
    request: () => new Promise<never>(() => undefined),
    setNotificationHandler: () => undefined,
    getServerVersion: () => ({ name: 'deaf' }),
  }

  it('still bounds tools/list by timeoutMs', async () => {
    await expect(mcpTools(deaf, { timeoutMs: 20 })).rejects.toMatchObject({ kind: 'timeout', server: 'deaf' })
  })

  it('still gives up tools/list when the signal aborts', async () => {
    const controller = new AbortController()
    const listing = mcpTools(deaf, { signal: controller.signal })
    controller.abort()
    await expect(listing).rejects.toMatchObject({ kind: 'aborted' })
  })

  it('passes the caller signal and the timeout to the SDK request, so the SDK can cancel it', async () => {
    const seen: unknown[] = []
    const recording = { ...deaf, request: (_req: unknown, _schema: unknown, options: unknown) => (seen.push(options), Promise.resolve({ tools: [] })) }
    await mcpTools(recording, { timeoutMs: 1234 })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({ timeout: 1234 })
    expect((seen[0] as { signal?: unknown }).signal).toBeInstanceOf(AbortSignal)
  })
})
