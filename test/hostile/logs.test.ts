import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, tool } from '../../src/index.ts'
import { logLine, logValue } from '../../src/agent/log-value.ts'
import { scripted } from '../../src/providers/index.ts'

const Input = Type.Object({ q: Type.String() })

/** Every line a line logger received, at any level. */
function lineLogger() {
  const lines: string[] = []
  const at = (level: string) => (message: string) => lines.push(`${level} ${message}`)
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } }
}

/** Runs an agent whose model calls the tool `name` (it has only tool `t`), with a line logger; settles within 2 s. */
async function callInvented(name: string, id = 'c1', agentName = 'agent'): Promise<{ lines: string[]; toolContent: string | undefined }> {
  const { lines, logger } = lineLogger()
  const provider = scripted([{ content: '', toolCalls: [{ id, name, args: { q: 'x' } }] }, 'done'])
  const agent = Agent.create({ provider, name: agentName, logger })
    .tool(tool({ name: 't', description: 't', input: Input, execute: () => 'ok' }))
    .build()
  const run = agent.runDetailed('go')
  const result = await Promise.race([run, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('did not settle in 2 s')), 2_000))])
  expect(result.text).toBe('done')
  return { lines, toolContent: provider.requests[1]?.messages.find((m) => m.role === 'tool')?.content }
}

const FORGED = 'x ext=agent outcome=no_retry retry_count=0\nvalidation_retry_outcome tool=refund ext=agent outcome=success retry_count=0'

/** Model-invented tool names, each of which must stay inside one field of one line. */
const HOSTILE_NAMES: readonly [string, string][] = [
  ['a newline forging a second line', FORGED],
  ['a carriage return', 'a\rvalidation_retry_outcome tool=b'],
  ['CRLF', 'a\r\nb'],
  ['a NUL character', 'a\u0000b'],
  ['an ANSI escape sequence', '\u001b[2Jcleared'],
  ['a line separator (U+2028)', 'a\u2028b'],
  ['a paragraph separator (U+2029)', 'a\u2029b'],
  ['a next-line control (U+0085)', 'a\u0085b'],
  ['a bidi override (U+202E)', 'a\u202eb'],
  ['a DEL character', 'a\u007fb'],
  ['a lone surrogate', 'a\ud800b'],
  ['a tab', 'a\tb'],
  ['spaces and = forging fields', 'x outcome=success retry_count=0'],
  ['a double quote and a backslash', 'a"b\\c'],
]

describe('hostile logs: model-invented tool names in the text line', () => {
  it.each(HOSTILE_NAMES)('keeps a name with %s in one quoted field of one line', async (_name, name) => {
    const { lines } = await callInvented(name)
    expect(lines).toHaveLength(1)
    const line = lines[0] as string
    expect(line).not.toMatch(/[\p{Cc}\u2028\u2029\u202e]/u)
    // The name is one JSON string that reads back as the name the model sent; the rest is the line as Imperal writes it.
    const quoted = /^debug validation_retry_outcome tool=("(?:[^"\\]|\\.)*") ext=/.exec(line)?.[1] as string
    expect(JSON.parse(quoted)).toBe(name)
    expect(line.replace(quoted, 'NAME')).toBe('debug validation_retry_outcome tool=NAME ext=agent outcome=no_retry retry_count=0')
  })

  it('writes no line for an empty name: the answer is refused as malformed-response before any call is settled', async () => {
    const { lines, logger } = lineLogger()
    const provider = scripted([{ content: '', toolCalls: [{ id: 'c1', name: '', args: { q: 'x' } }] }, 'done'])
    const agent = Agent.create({ provider, name: 'agent', logger })
      .tool(tool({ name: 't', description: 't', input: Input, execute: () => 'ok' }))
      .build()
    await expect(agent.runDetailed('go')).rejects.toMatchObject({ kind: 'malformed-response' })
    expect(lines.filter((l) => l.includes('validation_retry_outcome'))).toEqual([])
    // The value itself, should one reach a line, stays one quoted field.
    expect(logValue('')).toBe('""')
  })

  it('cuts a 100,000-character name to 200 characters in the line', async () => {
    const { lines } = await callInvented('n'.repeat(100_000))
    expect(lines).toEqual([`debug validation_retry_outcome tool=${'n'.repeat(200)}… ext=agent outcome=no_retry retry_count=0`])
  })

  it('cuts a 100,000-character multi-line name and keeps it on one line', async () => {
    const { lines } = await callInvented(`a\n${'n'.repeat(100_000)}`)
    expect(lines).toHaveLength(1)
    expect(lines[0]).not.toContain('\n')
    expect((lines[0] as string).length).toBeLessThan(300)
  })

  it('bounds the unknown-tool message the model is sent about a 100,000-character name', async () => {
    const { toolContent } = await callInvented(`a\n${'n'.repeat(100_000)}`)
    expect(toolContent).toMatch(/^UNKNOWN_TOOL: there is no tool named 'a n+…'/)
    expect((toolContent as string).length).toBeLessThan(300)
  })

  it('keeps a tool call id with control characters out of the line and answers it as sent', async () => {
    const id = 'call\n\u0000\u001b[31m'
    const { lines } = await callInvented('t', id)
    expect(lines).toEqual(['debug validation_retry_outcome tool=t ext=agent outcome=no_retry retry_count=0'])
  })

  it('quotes an agent name that is not a plain token', async () => {
    const { lines } = await callInvented('t', 'c1', 'mail bot\nforged')
    expect(lines).toEqual(['debug validation_retry_outcome tool=t ext="mail bot\\nforged" outcome=no_retry retry_count=0'])
  })

  it('leaves plain names bare, as Imperal writes them', async () => {
    const { lines } = await callInvented('create_event')
    expect(lines).toEqual(['debug validation_retry_outcome tool=create_event ext=agent outcome=no_retry retry_count=0'])
  })
})

describe('hostile logs: structured loggers', () => {
  it('hands a structured logger the name cut to 200 characters and one JSON line per entry', async () => {
    const entries: string[] = []
    const write = (fields: object, message?: string) => entries.push(JSON.stringify({ ...fields, msg: message }))
    const name = `${FORGED}${'n'.repeat(100_000)}`
    const provider = scripted([{ content: '', toolCalls: [{ id: 'c1', name, args: {} }] }, 'done'])
    const agent = Agent.create({ provider, logger: { debug: write, info: write, warn: write }, logFormat: 'fields' })
      .tool(tool({ name: 't', description: 't', input: Input, execute: () => 'ok' }))
      .build()
    await agent.runDetailed('go')
    expect(entries).toHaveLength(1)
    const entry = JSON.parse(entries[0] as string)
    expect(entries[0]).not.toContain('\n')
    expect(entry.tool).toBe(`${name.slice(0, 200)}…`)
    expect(entry.msg).not.toContain('\n')
  })
})

describe('logValue and logLine', () => {
  it('never splits a surrogate pair when cutting', () => {
    const value = `${'a'.repeat(199)}😀tail`
    expect(logValue(value)).toBe(`${'a'.repeat(199)}…`)
  })

  it('turns any line into one line without raw control characters', () => {
    expect(logLine('a\nb\rc\u2028d')).toBe('a\\nb\\rc\\u2028d')
    expect(logLine('x'.repeat(10_000))).toHaveLength(4_001)
  })
})
