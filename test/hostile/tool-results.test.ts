import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, tool, type Message, type RunResult } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { noEphemeral } from './support.ts'

const Input = Type.Object({ q: Type.String() })
const callT = { content: '', toolCalls: [{ id: 'c1', name: 't', args: { q: 'x' } }] }
const PREFIX = "TOOL_ERROR: tool 't' failed: its result cannot be sent as JSON ("

/** Runs one tool turn whose `execute` returns `make()`, then a final answer, bounded at 2 s. */
async function toolReturning(make: () => unknown): Promise<{ result: RunResult<string>; sent: string | undefined; history: readonly Message[] }> {
  const provider = scripted([callT, 'done'])
  const agent = Agent.create({ provider })
    .tool(tool({ name: 't', description: 't', input: Input, execute: () => make() }))
    .build()
  const run = agent.runDetailed('go')
  const result = await Promise.race([run, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('did not settle in 2 s')), 2_000))])
  const sent = provider.requests[1]?.messages.find((m) => m.role === 'tool')?.content
  return { result, sent, history: agent.history }
}

const cyclic = (): unknown => {
  const o: Record<string, unknown> = { a: 1 }
  o['self'] = o
  return o
}
const deep = (): unknown => {
  let o: unknown = {}
  for (let i = 0; i < 200_000; i++) o = { o }
  return o
}
function secretSource(): string {
  return 'SECRET-SOURCE-LINE'
}

/** Results JSON cannot write, and a piece of the reason the model is told. */
const UNWRITABLE: readonly [name: string, make: () => unknown, reason: RegExp][] = [
  ['a BigInt', () => 10n, /BigInt/],
  ['an object holding a BigInt', () => ({ total: 10n }), /BigInt/],
  ['an object with a cycle', cyclic, /TypeError: .*circular/i],
  [
    'an array that contains itself',
    () => {
      const a: unknown[] = []
      a.push(a)
      return a
    },
    /circular/i,
  ],
  ['a function', () => secretSource, /it is a function/],
  ['an arrow function', () => () => 'x', /it is a function/],
  ['a Symbol', () => Symbol('s'), /it is a symbol/],
  [
    'an object whose toJSON throws',
    () => ({
      toJSON: () => {
        throw new Error('no json')
      },
    }),
    /Error: no json/,
  ],
  [
    'an object whose toJSON throws a string',
    () => ({
      toJSON: () => {
        throw 'plain string'
      },
    }),
    /thrown: plain string/,
  ],
  [
    'an object whose getter throws',
    () => ({
      get a(): never {
        throw new RangeError('getter exploded')
      },
    }),
    /RangeError: getter exploded/,
  ],
  ['an object whose toJSON gives a function', () => ({ toJSON: () => secretSource }), /toJSON gives nothing JSON can write/],
  ['an object whose toJSON gives undefined', () => ({ toJSON: () => undefined }), /toJSON gives nothing JSON can write/],
  ['a result nested 200,000 levels deep', deep, /RangeError/],
  [
    'a Proxy whose ownKeys trap throws',
    () =>
      new Proxy(
        {},
        {
          ownKeys() {
            throw new Error('trap')
          },
        },
      ),
    /Error: trap/,
  ],
  [
    'an object whose toJSON throws a 100k-character multi-line message',
    () => ({
      toJSON: () => {
        throw new Error(`line one\nline two ${'z'.repeat(100_000)}`)
      },
    }),
    /line one line two z+…\)$/,
  ],
]

describe('hostile tool results: what JSON cannot write', () => {
  it.each(UNWRITABLE)('answers %s as execute-failed, told to the model in one bounded line', async (_name, make, reason) => {
    const { result, sent, history } = await toolReturning(make)
    expect(result.text).toBe('done')
    const entry = result.functionsCalled[0]
    expect(entry).toMatchObject({ status: 'execute-failed', result: undefined, outcome: 'no_retry' })
    expect(sent).toBe(entry?.error)
    expect(sent?.startsWith(PREFIX)).toBe(true)
    expect(sent).toMatch(reason)
    expect(sent).not.toContain('\n')
    expect(sent?.length).toBeLessThan(700)
    expect(sent).not.toContain('[object Object]')
    expect(sent).not.toContain('SECRET-SOURCE-LINE')
    expect(sent).not.toContain('=>')
    // The history holds the same line, never the unwritable value.
    const toolMessage = history.find((m) => m.role === 'tool')
    expect(toolMessage).toMatchObject({ content: sent, isError: true })
    expect(noEphemeral(history)).toBe(true)
  })
})

describe('hostile tool results: what JSON writes', () => {
  it.each([
    ['a 1 MB string, unchanged', () => 'r'.repeat(1_000_000), 'r'.repeat(1_000_000)],
    ['an object holding a function, without it', () => ({ a: 1, f: secretSource }), '{"a":1}'],
    ['a Date, as its ISO text', () => new Date(0), '"1970-01-01T00:00:00.000Z"'],
    ['a number', () => 42, '42'],
    ['NaN, as JSON writes it', () => Number.NaN, 'null'],
    ['a string with control characters, as it is', () => 'a\u0000b\nc', 'a\u0000b\nc'],
    ['a Map, as JSON writes it', () => new Map([['k', 1]]), '{}'],
  ])('sends %s', async (_name, make, content) => {
    const { result, sent } = await toolReturning(make)
    expect(result.functionsCalled[0]?.status).toBe('ok')
    expect(sent).toBe(content)
  })
})
