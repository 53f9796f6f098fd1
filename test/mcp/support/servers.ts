// Real MCP servers written with the official SDK's McpServer, in both lines, and clients of both
// lines connected to them in-process. Every server offers the same tools and records the calls it ran.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport as InMemoryV1 } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer as McpServerV1 } from '@modelcontextprotocol/sdk/server/mcp.js'
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2 } from '@modelcontextprotocol/client'
import { InMemoryTransport as InMemoryV2, McpServer as McpServerV2 } from '@modelcontextprotocol/server'
import * as z from 'zod'
import type { McpClient } from '../../../src/integrations/mcp.ts'

export type Line = 'v1' | 'v2'
export const LINES: readonly Line[] = ['v1', 'v2']

/** What a server saw. */
export interface ServerLog {
  /** Every tools/call its handlers ran: the tool and the arguments as they arrived. */
  readonly calls: { tool: string; args: unknown }[]
  /** Calls whose signal the client's cancellation aborted. */
  readonly cancelled: string[]
}

/** Handlers of the test tools; `slow` runs until its signal aborts (or 5 s), then answers. */
export function toolHandlers(log: ServerLog, state: { slowFirst: number }) {
  const record = (tool: string, args: unknown) => log.calls.push({ tool, args })
  const sleep = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer)
          resolve()
        },
        { once: true },
      )
    })
  return {
    get_weather: async (args: { city: string; days: number }) => {
      record('get_weather', args)
      return { content: [{ type: 'text' as const, text: `${args.city}: 21°C for ${args.days} days` }], structuredContent: { celsius: 21 } }
    },
    fail: async (args: unknown) => {
      record('fail', args)
      return { isError: true, content: [{ type: 'text' as const, text: 'the warehouse is closed on Sundays' }] }
    },
    bad_output: async (args: unknown) => {
      record('bad_output', args)
      return { content: [{ type: 'text' as const, text: 'hot' }], structuredContent: { celsius: 'hot' } }
    },
    no_output: async (args: unknown) => {
      record('no_output', args)
      return { content: [{ type: 'text' as const, text: 'no structure' }] }
    },
    slow: async (args: unknown, signal: AbortSignal, name = 'slow') => {
      record(name, args)
      // The first `slowFirst` calls hang (until cancelled); later ones answer at once.
      if (state.slowFirst-- > 0) {
        await sleep(5_000, signal)
        if (signal.aborted) log.cancelled.push(name)
      }
      return { content: [{ type: 'text' as const, text: 'slow done' }] }
    },
    echo: async (args: unknown) => {
      record('echo', args)
      return { content: [{ type: 'text' as const, text: JSON.stringify(args) }] }
    },
    /** What the server saw so far (for a server in another process). */
    log: async () => ({ content: [{ type: 'text' as const, text: JSON.stringify(log) }] }),
  }
}

const Weather = { city: z.string(), days: z.number().int().min(1).max(7) }
const Celsius = { celsius: z.number() }
const Query = { q: z.string() }

/** The test tools on an McpServer of either line (their registration differs only in how a schema is given). */
export function buildServer(line: Line, log: ServerLog, state = { slowFirst: 0 }) {
  const h = toolHandlers(log, state)
  if (line === 'v1') {
    const s = new McpServerV1({ name: 'weather', version: '1.0.0' })
    s.registerTool(
      'get_weather',
      { description: 'Weather for a city', inputSchema: Weather, outputSchema: Celsius, annotations: { readOnlyHint: true } },
      async (a) => h.get_weather(a),
    )
    s.registerTool('fail', { description: 'Always fails', inputSchema: Query }, async (a) => h.fail(a))
    s.registerTool('bad_output', { description: 'Breaks its output schema', inputSchema: Query }, async (a) => h.bad_output(a))
    s.registerTool('no_output', { description: 'Has no structured output', inputSchema: Query }, async (a) => h.no_output(a))
    s.registerTool('slow', { description: 'Slow, read-only', inputSchema: Query, annotations: { readOnlyHint: true } }, async (a, extra) =>
      h.slow(a, extra.signal),
    )
    s.registerTool('slow_write', { description: 'Slow, writes', inputSchema: Query, annotations: { destructiveHint: true } }, async (a, extra) =>
      h.slow(a, extra.signal, 'slow_write'),
    )
    s.registerTool('echo', { description: 'Echoes', inputSchema: z.looseObject({}) }, async (a) => h.echo(a))
    s.registerTool('server_log', { description: 'What the server saw', annotations: { readOnlyHint: true } }, async () => h.log())
    return s
  }
  const s = new McpServerV2({ name: 'weather', version: '1.0.0' })
  s.registerTool(
    'get_weather',
    { description: 'Weather for a city', inputSchema: z.object(Weather), outputSchema: z.object(Celsius), annotations: { readOnlyHint: true } },
    async (a: { city: string; days: number }) => h.get_weather(a),
  )
  s.registerTool('fail', { description: 'Always fails', inputSchema: z.object(Query) }, async (a: unknown) => h.fail(a))
  s.registerTool('bad_output', { description: 'Breaks its output schema', inputSchema: z.object(Query) }, async (a: unknown) => h.bad_output(a))
  s.registerTool('no_output', { description: 'Has no structured output', inputSchema: z.object(Query) }, async (a: unknown) => h.no_output(a))
  s.registerTool('slow', { description: 'Slow, read-only', inputSchema: z.object(Query), annotations: { readOnlyHint: true } }, async (a: unknown, ctx) =>
    h.slow(a, ctx.mcpReq.signal),
  )
  s.registerTool('slow_write', { description: 'Slow, writes', inputSchema: z.object(Query), annotations: { destructiveHint: true } }, async (a: unknown, ctx) =>
    h.slow(a, ctx.mcpReq.signal, 'slow_write'),
  )
  s.registerTool('echo', { description: 'Echoes', inputSchema: z.looseObject({}) }, async (a: unknown) => h.echo(a))
  s.registerTool('server_log', { description: 'What the server saw', annotations: { readOnlyHint: true } }, async () => h.log())
  return s
}

/** A server of `line` whose tools/list answers `tools` (raw definitions, however hostile); calls go to its `echo` tool's handler. */
export function rawListServer(line: Line, log: ServerLog, tools: () => unknown[]) {
  const s = buildServer(line, log)
  const list = async () => ({ tools: tools() }) as never
  if (line === 'v1') (s as McpServerV1).server.setRequestHandler(ListToolsRequestSchema, list)
  else (s.server as unknown as { setRequestHandler(method: string, handler: () => unknown): void }).setRequestHandler('tools/list', list)
  return s
}

/** A connected client of `line`, in-process. */
export async function connect(
  line: Line,
  server: McpServerV1 | McpServerV2,
  serverLine: Line = line,
): Promise<{ client: McpClient; close: () => Promise<void> }> {
  const [serverSide, clientSide] = serverLine === 'v1' ? InMemoryV1.createLinkedPair() : InMemoryV2.createLinkedPair()
  // The server lists an outputSchema for two tools that do not keep it: McpServer checks its own
  // output, so a server that breaks its schema is one whose listing says more than its tools do.
  const send = serverSide.send.bind(serverSide)
  serverSide.send = (message: unknown, options?: unknown) => send(withOutputSchemas(message) as never, options as never)
  await (server as McpServerV1).connect(serverSide as never)
  const client = line === 'v1' ? new ClientV1({ name: 'test', version: '1.0.0' }) : new ClientV2({ name: 'test', version: '1.0.0' })
  await client.connect(clientSide as never)
  return { client, close: () => client.close() }
}

const LYING = new Set(['bad_output', 'no_output'])
const CELSIUS_SCHEMA = { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] }

function withOutputSchemas(message: unknown): unknown {
  const tools = (message as { result?: { tools?: unknown } }).result?.tools
  if (!Array.isArray(tools)) return message
  const result = (message as { result: object }).result
  return {
    ...(message as object),
    result: { ...result, tools: tools.map((t: { name: string }) => (LYING.has(t.name) ? { ...t, outputSchema: CELSIUS_SCHEMA } : t)) },
  }
}

export function newLog(): ServerLog {
  return { calls: [], cancelled: [] }
}
