import { afterEach, describe, expect, it, vi } from 'vitest'
import { isMcpToolError, mcpTools, type McpTool, type McpToolError } from '../../src/integrations/mcp.ts'
import { connect, LINES, newLog, rawListServer, type Line } from './support/servers.ts'

// Hostile tool definitions from a real McpServer (its tools/list answers them as they are). Each
// case has one exact outcome: refused with an McpToolError naming the server and the tool, or
// validated correctly. Each settles within 2 s and runs no code from the schema.

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const close of closers.splice(0)) await close()
})

async function listed(line: Line, tools: unknown[], options: Parameters<typeof mcpTools>[1] = {}) {
  const log = newLog()
  const { client, close } = await connect(
    line,
    rawListServer(line, log, () => tools),
  )
  closers.push(close)
  return { log, load: () => mcpTools(client, options) }
}

/** Rejects when `promise` has not settled within 2 s. */
function within2s<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('did not settle within 2 s')), 2_000)
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** The refusal of loading `tools`, checked to be an McpToolError naming the server and `tool`. */
async function refusal(line: Line, tool: unknown, name: string): Promise<McpToolError> {
  const { load } = await listed(line, [tool])
  const error = await within2s(
    load().then(
      () => undefined,
      (e: unknown) => e,
    ),
  )
  expect(isMcpToolError(error)).toBe(true)
  const e = error as McpToolError
  expect({ kind: e.kind, server: e.server, tool: e.tool }).toEqual({ kind: 'schema-refused', server: 'weather', tool: name })
  expect(e.message).toContain(`server "weather" tool ${JSON.stringify(name)}`)
  expect(e.message).not.toContain('\n')
  return e
}

/** The one tool `definition` gives, loaded. */
async function loaded(line: Line, definition: unknown): Promise<McpTool> {
  const { load } = await listed(line, [definition])
  const tools = await within2s(load())
  expect(tools).toHaveLength(1)
  return tools[0] as McpTool
}

const accepts = async (tool: McpTool, value: unknown) => (await tool.input.validate(value)).ok

const tool = (inputSchema: unknown, name = 't') => ({ name, description: 'hostile', inputSchema })
const object = (properties: Record<string, unknown>, required?: string[]) => ({ type: 'object', properties, ...(required ? { required } : {}) })

// biome-ignore lint/suspicious/noTemplateCurlyInString: these keys hold template placeholders on purpose.
const CODE_KEYS = ['a\'b"c', 'back`tick`', '${globalThis.__pwned = 1}', 'end */ start /*', 'line\nbreak\r\u2028', "'); globalThis.__pwned = 1; ('"]

function nest(depth: number): unknown {
  let node: unknown = { type: 'string' }
  for (let i = 0; i < depth; i++) node = { type: 'object', properties: { a: node } }
  return node
}

describe.each(LINES)('hostile schemas from a server, %s client', (line) => {
  it.each(CODE_KEYS)('validates a property named %j correctly, as data', async (key) => {
    const t = await loaded(line, tool(object({ [key]: { type: 'string' } }, [key])))
    expect(await accepts(t, { [key]: 'x' })).toBe(true)
    expect(await accepts(t, { [key]: 1 })).toBe(false)
    expect(await accepts(t, {})).toBe(false)
    expect((globalThis as { __pwned?: unknown }).__pwned).toBeUndefined()
  })

  it('generates no code holding the schema’s text (and trustSchemas does, for comparison)', async () => {
    const schema = object(Object.fromEntries(CODE_KEYS.map((k) => [k, { type: 'string', minLength: 1 }])), CODE_KEYS)
    const generated: string[] = []
    const RealFunction = globalThis.Function
    vi.spyOn(globalThis, 'Function').mockImplementation(function (this: unknown, ...args: string[]) {
      generated.push(args.join('\n'))
      return Reflect.construct(RealFunction, args)
    } as never)
    const t = await loaded(line, tool(schema))
    await accepts(t, Object.fromEntries(CODE_KEYS.map((k) => [k, 'v'])))
    await accepts(t, {})
    expect(generated.filter((code) => code.includes('__pwned'))).toEqual([])
    const { load } = await listed(line, [tool(structuredClone(schema))], { trustSchemas: true })
    const trusted = (await load())[0] as McpTool
    await accepts(trusted, {})
    expect(generated.some((code) => code.includes('__pwned'))).toBe(true)
  })

  it('refuses a 10,000-deep nesting of objects at maxDepth', async () => {
    const e = await refusal(line, tool(nest(10_000)), 't')
    expect(e.message).toContain('nests deeper than 32 levels (limits.maxDepth)')
  })

  it('refuses a 10,000-deep nesting of arrays at maxDepth', async () => {
    let items: unknown = { type: 'string' }
    for (let i = 0; i < 10_000; i++) items = [items]
    const e = await refusal(line, tool({ type: 'object', properties: { a: { type: 'array', items } } }), 't')
    expect(e.message).toContain('limits.maxDepth')
  })

  it('accepts a nesting as deep as maxDepth allows, and validates it', async () => {
    const t = await loaded(line, tool(nest(10)))
    let good: unknown = 'leaf'
    let bad: unknown = 5
    for (let i = 0; i < 10; i++) {
      good = { a: good }
      bad = { a: bad }
    }
    expect([await accepts(t, good), await accepts(t, bad)]).toEqual([true, false])
  })

  it('refuses a 1 MB enum at maxChars', async () => {
    const values = Array.from({ length: 1_000 }, (_, i) => `${i}`.padEnd(1_000, '-'))
    const e = await refusal(line, tool(object({ v: { enum: values } })), 't')
    expect(e.message).toContain('limits.maxChars')
  })

  it('refuses 11,000 properties at maxNodes', async () => {
    const properties = Object.fromEntries(Array.from({ length: 11_000 }, (_, i) => [`p${i}`, true]))
    const e = await refusal(line, tool(object(properties)), 't')
    expect(e.message).toContain('limits.maxNodes')
  })

  it('refuses a $ref cycle that never reaches into the value', async () => {
    const e = await refusal(
      line,
      tool({ type: 'object', $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, properties: { x: { $ref: '#/$defs/a' } } }),
      't',
    )
    expect(e.message).toContain('never reaches into the value')
  })

  it('refuses a root that refers to itself', async () => {
    await refusal(line, tool({ type: 'object', $ref: '#' }), 't')
  })

  it('refuses a cycle through allOf and not', async () => {
    await refusal(line, tool({ type: 'object', $defs: { a: { allOf: [{ not: { $ref: '#/$defs/a' } }] } }, properties: { x: { $ref: '#/$defs/a' } } }), 't')
  })

  it.each([['dependencies'], ['dependentSchemas']])('refuses a cycle through %s, which applies its schema to the value itself', async (keyword) => {
    await refusal(line, tool({ type: 'object', [keyword]: { a: { $ref: '#' } } }), 't')
    await refusal(
      line,
      tool({ type: 'object', $defs: { x: { allOf: [{ [keyword]: { a: { $ref: '#/$defs/x' } } }] } }, properties: { p: { $ref: '#/$defs/x' } } }),
      't',
    )
  })

  it('validates a draft 7 dependencies keyword of names and of a schema that reaches into the value', async () => {
    const t = await loaded(line, tool({ type: 'object', dependencies: { a: ['b'], c: { properties: { d: { $ref: '#' } } } } }))
    expect(await accepts(t, { a: 1, b: 2, c: 3, d: { a: 1, b: 2 } })).toBe(true)
    expect(await accepts(t, { a: 1 })).toBe(false)
  })

  it('refuses a chain of $defs each applying the next twice (2^40 subschemas on every call), within maxNodes', async () => {
    const defs: Record<string, unknown> = { a40: { type: 'object' } }
    for (let i = 0; i < 40; i++) defs[`a${i}`] = { allOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] }
    await refusal(line, tool({ type: 'object', $defs: defs, $ref: '#/$defs/a0' }), 't')
  })

  it('validates a schema whose definitions are shared by many references, while the subschemas it applies stay within maxNodes', async () => {
    const t = await loaded(
      line,
      tool({
        type: 'object',
        $defs: { id: { type: 'string', minLength: 1 }, pair: { allOf: [{ $ref: '#/$defs/id' }, { $ref: '#/$defs/id' }] } },
        properties: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}`, { $ref: '#/$defs/pair' }])),
      }),
    )
    expect(await accepts(t, { p0: 'a', p49: 'b' })).toBe(true)
    expect(await accepts(t, { p0: '' })).toBe(false)
  })

  it('validates a recursive schema whose $ref goes through properties and items (a tree)', async () => {
    const t = await loaded(
      line,
      tool({ type: 'object', properties: { name: { type: 'string' }, kids: { type: 'array', items: { $ref: '#' } } }, required: ['name'] }),
    )
    expect(await accepts(t, { name: 'a', kids: [{ name: 'b', kids: [{ name: 'c' }] }] })).toBe(true)
    expect(await accepts(t, { name: 'a', kids: [{ kids: [] }] })).toBe(false)
  })

  it.each([['https://evil.example/schema.json'], ['http://127.0.0.1:1/x#/y'], ['file:///etc/passwd'], ['//evil.example/s']])(
    'refuses the remote $ref %s without fetching it',
    async (ref) => {
      const fetchSpy = vi.spyOn(globalThis, 'fetch')
      const e = await refusal(line, tool(object({ x: { $ref: ref } })), 't')
      expect(e.message).toContain('remote $ref')
      expect(fetchSpy).not.toHaveBeenCalled()
    },
  )

  it('refuses a $ref that does not resolve, however it is spelt', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template placeholder on purpose.
    const e = await refusal(line, tool(object({ x: { $ref: "#/$defs/'+${globalThis.__pwned = 1}+'" } })), 't')
    expect(e.message).toContain('does not resolve')
  })

  it('refuses $dynamicRef', async () => {
    await refusal(line, tool(object({ x: { $dynamicRef: '#meta' } })), 't')
  })

  it('validates properties named __proto__, constructor and prototype as plain keys', async () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"number"},"prototype":{"type":"boolean"}},"required":["constructor"]}',
    )
    const t = await loaded(line, tool(schema))
    expect(await accepts(t, { constructor: 1, prototype: true })).toBe(true)
    expect(await accepts(t, { constructor: 'x' })).toBe(false)
    expect(Object.keys(t.spec.inputSchema['properties'] as object)).toEqual(['__proto__', 'constructor', 'prototype'])
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
  })

  it('checks a backtracking pattern in linear time', async () => {
    const t = await loaded(line, tool(object({ s: { type: 'string', pattern: '^(a+)+$' } })))
    expect(await within2s(Promise.resolve(accepts(t, { s: `${'a'.repeat(50_000)}!` })))).toBe(false)
    expect(await accepts(t, { s: 'aaa' })).toBe(true)
  })

  it('refuses a pattern with a backreference (no linear-time engine runs it)', async () => {
    const e = await refusal(line, tool(object({ s: { type: 'string', pattern: '(a)\\1' } })), 't')
    expect(e.message).toContain('inputSchema was refused')
  })

  it('refuses a pattern that is not a regular expression', async () => {
    await refusal(line, tool(object({ s: { type: 'string', pattern: '([' } })), 't')
  })

  it.each([
    ['a string schema', { type: 'string' }],
    ['a malformed type', { type: 5 }],
    ['an array', [{ type: 'object' }]],
    ['no schema at all', undefined],
  ])('refuses an inputSchema that is %s', async (_what, inputSchema) => {
    await refusal(line, { name: 't', description: 'x', ...(inputSchema === undefined ? {} : { inputSchema }) }, 't')
  })

  it('refuses a tool name with a newline, quoting it on one line', async () => {
    const e = await refusal(line, tool({ type: 'object' }, 'get\nweather'), 'get\nweather')
    expect(e.message).toContain('"get\\nweather"')
  })

  it('refuses a tool name longer than providers take', async () => {
    await refusal(line, tool({ type: 'object' }, 'x'.repeat(65)), 'x'.repeat(65))
  })

  it('refuses a 1 MB description', async () => {
    await refusal(line, { name: 't', description: 'd'.repeat(1_000_000), inputSchema: { type: 'object' } }, 't')
  })

  it('refuses a hostile outputSchema as it refuses an inputSchema', async () => {
    const e = await refusal(line, { ...tool({ type: 'object' }), outputSchema: nest(10_000) }, 't')
    expect(e.message).toContain('outputSchema was refused')
  })

  it('refuses a server listing one tool name twice', async () => {
    const { load } = await listed(line, [tool({ type: 'object' }), tool({ type: 'object' })])
    await expect(within2s(load())).rejects.toMatchObject({ kind: 'schema-refused', tool: 't' })
  })

  it("skips a refused tool with onRefused: 'skip', keeping the others and reporting it", async () => {
    const errors: McpToolError[] = []
    const { load } = await listed(line, [tool(nest(10_000), 'deep'), tool(object({ q: { type: 'string' } }), 'fine')], {
      onRefused: 'skip',
      onError: (e) => errors.push(e),
    })
    const tools = await within2s(load())
    expect(tools.map((t) => t.name)).toEqual(['fine'])
    expect(errors.map((e) => [e.kind, e.tool])).toEqual([['schema-refused', 'deep']])
  })

  it('answers a tools/list without a tools array with a typed list failure', async () => {
    const log = newLog()
    const server = rawListServer(line, log, () => [])
    const { client, close } = await connect(line, server)
    closers.push(close)
    const broken = {
      ...client,
      request: async () => ({ tools: 'nope' }),
      setNotificationHandler: () => undefined,
      getServerVersion: () => ({ name: 'weather' }),
    }
    await expect(within2s(mcpTools(broken))).rejects.toMatchObject({ kind: 'list-failed', server: 'weather' })
  })

  it('reads a tools/list page of 500,000 entries without overflowing the stack', async () => {
    const page = Array.from({ length: 500_000 }, (_, i) => ({ name: `t${i}`, inputSchema: { type: 'object' } }))
    const huge = {
      request: async () => ({ tools: page }),
      setNotificationHandler: () => undefined,
      getServerVersion: () => ({ name: 'weather' }),
    }
    const tools = await within2s(mcpTools(huge, { filter: (name) => name === 't499999' }))
    expect(tools.map((t) => t.name)).toEqual(['t499999'])
  })
})
