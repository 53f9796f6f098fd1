import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, tool, type Message, type RunResult } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { noEphemeral } from './support.ts'

const Input = Type.Object({ q: Type.String() })
const callT = { content: '', toolCalls: [{ id: 'c1', name: 't', args: { q: 'x' } }] }

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

/** Results `JSON.stringify` cannot write, and the text the model is sent instead. */
const UNWRITABLE: readonly [name: string, make: () => unknown, sent: string | RegExp][] = [
  ['a BigInt', () => 10n, '"10"'],
  ['an object holding a BigInt', () => ({ total: 10n, currency: 'EUR' }), '{"total":"10","currency":"EUR"}'],
  ['an object with a cycle', cyclic, '{"a":1,"self":"[Circular]"}'],
  [
    'an array that contains itself',
    () => {
      const a: unknown[] = [1]
      a.push(a)
      return a
    },
    '[1,"[Circular]"]',
  ],
  ['a function', () => secretSource, '"[Function secretSource]"'],
  ['an arrow function', () => () => 'x', '"[Function (anonymous)]"'],
  ['a Symbol', () => Symbol('s'), '"[Symbol(s)]"'],
  ['an object holding a BigInt and a function', () => ({ n: 1n, f: secretSource }), '{"n":"1","f":"[Function secretSource]"}'],
  [
    'an object whose toJSON throws',
    () => ({
      toJSON: () => {
        throw new Error('no json')
      },
    }),
    '"[Unreadable: Error: no json]"',
  ],
  [
    'an object whose toJSON throws a string',
    () => ({
      toJSON: () => {
        throw 'plain string'
      },
    }),
    '"[Unreadable: thrown: plain string]"',
  ],
  [
    'an object whose getter throws',
    () => ({
      ok: 1,
      get a(): never {
        throw new RangeError('getter exploded')
      },
    }),
    '{"ok":1,"a":"[Unreadable: RangeError: getter exploded]"}',
  ],
  ['an object whose toJSON gives a function', () => ({ toJSON: () => secretSource }), '"[Function secretSource]"'],
  ['an object whose toJSON gives undefined', () => ({ toJSON: () => undefined }), '(no result)'],
  ['a result nested 200,000 levels deep', deep, /^(\{"o":){100}"\[Too deep\]"\}{100}$/],
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
    '"[Unreadable: Error: trap]"',
  ],
  [
    'an object whose toJSON throws a 100k-character multi-line message',
    () => ({
      toJSON: () => {
        throw new Error(`line one\nline two ${'z'.repeat(100_000)}`)
      },
    }),
    /^"\[Unreadable: Error: line one line two z+…\]"$/,
  ],
]

describe('hostile tool results: what JSON.stringify cannot write', () => {
  it.each(UNWRITABLE)('writes %s safely and reports the call as done', async (_name, make, expected) => {
    const { result, sent, history } = await toolReturning(make)
    expect(result.text).toBe('done')
    const entry = result.functionsCalled[0]
    // The tool ran: the call is done, never a failure inviting the model to run it again.
    expect(entry).toMatchObject({ status: 'ok', error: undefined, outcome: 'no_retry' })
    if (typeof expected === 'string') expect(sent).toBe(expected)
    else expect(sent).toMatch(expected)
    expect(sent).not.toContain('[object Object]')
    expect(sent).not.toContain('SECRET-SOURCE-LINE')
    expect(sent).not.toContain('=>')
    expect(sent?.length).toBeLessThanOrEqual(4000)
    const toolMessage = history.find((m) => m.role === 'tool')
    expect(toolMessage?.content).toBe(sent)
    expect(toolMessage?.isError).toBeUndefined()
    expect(noEphemeral(history)).toBe(true)
  })
})

describe('hostile tool results: what JSON writes', () => {
  it.each([
    ['an object holding a function, without it', () => ({ a: 1, f: secretSource }), '{"a":1}'],
    ['a Date, as its ISO text', () => new Date(0), '"1970-01-01T00:00:00.000Z"'],
    ['a number', () => 42, '42'],
    ['NaN, as JSON writes it', () => Number.NaN, 'null'],
    ['a string with control characters, as it is', () => 'a\u0000b\nc', 'a\u0000b\nc'],
  ])('sends %s', async (_name, make, content) => {
    const { result, sent } = await toolReturning(make)
    expect(result.functionsCalled[0]?.status).toBe('ok')
    expect(sent).toBe(content)
  })
})

class Money {
  readonly #cents: number
  constructor(cents: number) {
    this.#cents = cents
  }
  get cents(): number {
    return this.#cents
  }
}

describe('hostile tool results: what JSON writes as {} while it holds data', () => {
  const selfMap = (): unknown => {
    const m = new Map<string, unknown>([['a', 1]])
    m.set('self', m)
    return m
  }
  it.each([
    ['a Map with string keys, as an object', () => new Map([['k', 1]]), '{"k":1}'],
    [
      'a Map with other keys, as its [key, value] pairs',
      () =>
        new Map<unknown, unknown>([
          [1, 'x'],
          [{ id: 2 }, 'y'],
        ]),
      '[[1,"x"],[{"id":2},"y"]]',
    ],
    ['a Set, as an array of its values', () => new Set(['a', 2n]), '["a","2"]'],
    ['a Map and a Set inside an object', () => ({ seen: new Set([1]), byId: new Map([['x', { ok: true }]]) }), '{"seen":[1],"byId":{"x":{"ok":true}}}'],
    ['a Map that holds itself', selfMap, '{"a":1,"self":"[Circular]"}'],
    ['a RegExp, as its text', () => ({ pattern: /a+b/gi }), '{"pattern":"/a+b/gi"}'],
    ['an instance with only private fields, by its class', () => ({ price: new Money(500) }), '{"price":"[Money]"}'],
    ['a WeakMap, by its class', () => new WeakMap(), '"[WeakMap]"'],
  ])('sends %s, never {}', async (_name, make, content) => {
    const { result, sent } = await toolReturning(make)
    expect(result.functionsCalled[0]?.status).toBe('ok')
    expect(sent).toBe(content)
  })

  it('keeps what JSON writes faithfully as JSON writes it: empty objects, arrays, typed arrays, boxed values', async () => {
    for (const [make, content] of [
      [() => ({}), '{}'],
      [() => Object.create(null), '{}'],
      [() => new Map(), '{}'],
      [() => [new Uint8Array([1, 2])], '[{"0":1,"1":2}]'],
      [() => ({ n: Object(3) }), '{"n":3}'],
    ] as const) {
      expect((await toolReturning(make)).sent).toBe(content)
    }
  })
})

describe('hostile tool results reaching the sinks', () => {
  it('records a run whose tool returned a BigInt in a cycle as trace lines JSON can read', async () => {
    const { mkdtempSync, readFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { recordTrace } = await import('../../src/trace/index.ts')
    const path = join(mkdtempSync(join(tmpdir(), 'tool-results-')), 'trace.jsonl')
    const provider = scripted([callT, 'done'])
    const value: Record<string, unknown> = { n: 10n }
    value['self'] = value
    const agent = Agent.create({ provider })
      .tool(tool({ name: 't', description: 't', input: Input, execute: () => value }))
      .build()
    const recorder = recordTrace(agent, { path })
    expect((await agent.runDetailed('go')).functionsCalled[0]?.status).toBe('ok')
    await recorder.stop()
    const lines = readFileSync(path, 'utf8').trim().split('\n')
    expect(lines.length).toBeGreaterThan(2)
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow()
  })
})
