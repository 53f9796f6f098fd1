import { describe, expect, it } from 'vitest'
import { Agent, createGate, type Message, type ModelRequest, type Provider } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

/** A provider that answers `ok` and keeps every request it was sent. */
function recording(): Provider & { readonly seen: ModelRequest[] } {
  const seen: ModelRequest[] = []
  return {
    name: 'p',
    seen,
    complete: async (request) => {
      seen.push(request)
      return { content: 'ok', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
    },
  }
}

const user: Message = { role: 'user', content: 'hi' }
/** An array of `length` copies of `m`, with a hole at `hole`. */
function sparseOf(m: Message, length: number, hole: number): unknown[] {
  const array = new Array<unknown>(length)
  for (let i = 0; i < length; i++) if (i !== hole) array[i] = m
  return array
}
const withProto = (o: object): unknown => Object.assign(Object.create(null) as object, o)

/** A message of the wrong shape, where it sits, and what the TypeError says about it. */
const BAD_MESSAGES: readonly [name: string, messages: readonly unknown[], message: RegExp][] = [
  ['an unknown role', [{ role: 'human', content: 'hi' }], /request\.messages\[0\]\.role must be 'system', 'user', 'assistant' or 'tool', got "human"/],
  ['a role in capitals', [user, { role: 'User', content: 'hi' }], /request\.messages\[1\]\.role .* got "User"/],
  ['no role', [{ content: 'hi' }], /request\.messages\[0\]\.role .* got undefined/],
  ['a numeric role', [{ role: 1, content: 'hi' }], /request\.messages\[0\]\.role .* got 1/],
  ['a role with a newline', [{ role: 'user\nsystem', content: 'hi' }], /request\.messages\[0\]\.role .* got "user\\nsystem"/],
  ['a 100k-character role', [{ role: 'r'.repeat(100_000), content: 'hi' }], /request\.messages\[0\]\.role .* got "r{40}…"$/],
  ['no content', [{ role: 'user' }], /request\.messages\[0\]\.content must be a string \(''.*\), got undefined/],
  ['null content', [{ role: 'assistant', content: null }], /request\.messages\[0\]\.content must be a string .*, got null/],
  ['content as an array of parts', [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], /request\.messages\[0\]\.content .* got an array/],
  ['content as a number', [user, user, { role: 'tool', content: 42, toolCallId: 'c1' }], /request\.messages\[2\]\.content .* got number/],
  ['content as a boxed String', [{ role: 'user', content: new String('hi') }], /request\.messages\[0\]\.content .* got object/],
  ['a null message', [user, null], /request\.messages\[1\] must be a message object, got null/],
  ['a string message', ['hi'], /request\.messages\[0\] must be a message object, got string/],
  ['an array message', [['user', 'hi']], /request\.messages\[0\] must be a message object, got an array/],
  ['a hole in the array', sparseOf(user, 3, 1), /request\.messages\[1\] must be a message object, got undefined/],
  ['toolCalls that are not an array', [{ role: 'assistant', content: '', toolCalls: { id: 'c1' } }], /request\.messages\[0\]\.toolCalls must be an array/],
  ['an empty role', [{ role: '', content: 'hi' }], /request\.messages\[0\]\.role .* got ""/],
]

describe('hostile requests: messages of the wrong shape', () => {
  it.each(BAD_MESSAGES)('gate.run refuses %s with a TypeError naming the message, before any provider call', async (_name, messages, message) => {
    const provider = recording()
    const gate = createGate({ providers: [provider] })
    const heard: string[] = []
    gate.events$.subscribe((e) => heard.push(e.type))
    const error = await gate.run({ messages } as unknown as ModelRequest).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message.startsWith('gate.run: request.messages[')).toBe(true)
    expect((error as Error).message).not.toContain('\n')
    expect((error as Error).message).toMatch(message)
    expect(provider.seen).toEqual([])
    expect(heard).toEqual([])
  })

  it.each(BAD_MESSAGES)('gate.stream refuses %s with a TypeError naming the message', (_name, messages, message) => {
    const provider = recording()
    const gate = createGate({ providers: [provider] })
    expect(() => gate.stream({ messages } as unknown as ModelRequest)).toThrow(TypeError)
    expect(() => gate.stream({ messages } as unknown as ModelRequest)).toThrow(message)
    expect(provider.seen).toEqual([])
  })

  it('never lets an unknown role reach the scripted provider, which would crash on it', async () => {
    const gate = createGate({ providers: [scripted(['ok'])] })
    await expect(gate.run({ messages: [{ role: 'human' }] } as unknown as ModelRequest)).rejects.toThrow(
      /^gate\.run: request\.messages\[0\]\.role must be 'system', 'user', 'assistant' or 'tool', got "human"$/,
    )
  })

  it('checks a history of 100,000 messages and finds the one bad message at its end within 2 s', async () => {
    const history: unknown[] = Array.from({ length: 100_000 }, () => user)
    history.push({ role: 'human', content: 'hi' })
    const gate = createGate({ providers: [recording()] })
    const settled = await Promise.race([
      gate.run({ messages: history } as unknown as ModelRequest).catch((e: unknown) => e),
      new Promise((resolve) => setTimeout(() => resolve('hang'), 2_000)),
    ])
    expect((settled as Error).message).toMatch(/request\.messages\[100000\]\.role/)
  })

  it('settles a huge sparse messages array at its first hole instead of walking it', async () => {
    const gate = createGate({ providers: [recording()] })
    const sparse = new Array<unknown>(2 ** 32 - 1)
    await expect(gate.run({ messages: sparse } as unknown as ModelRequest)).rejects.toThrow(/request\.messages\[0\] must be a message object, got undefined/)
  })

  it('answers a message whose role getter throws with that error, as a rejection', async () => {
    const boom = new Error('role getter exploded')
    const hostile = {
      content: 'hi',
      get role(): never {
        throw boom
      },
    }
    const gate = createGate({ providers: [recording()] })
    await expect(gate.run({ messages: [hostile] } as unknown as ModelRequest)).rejects.toBe(boom)
  })
})

describe('hostile requests: legal shapes stay legal', () => {
  it('sends every role, tool calls with empty content, tool results and an object without prototype', async () => {
    const provider = recording()
    const gate = createGate({ providers: [provider] })
    const messages = [
      { role: 'system', content: 'be brief' },
      user,
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'lookup', args: { q: 'x' } }] },
      { role: 'tool', content: 'found', toolCallId: 'c1', toolName: 'lookup' },
      { role: 'tool', content: '', toolCallId: 'c2', toolName: 'lookup', isError: true },
      withProto({ role: 'assistant', content: 'done' }),
      { role: 'user', content: '' },
    ] as Message[]
    const result = await gate.run({ messages })
    expect(result.response.content).toBe('ok')
    expect(provider.seen[0]?.messages).toHaveLength(messages.length)
  })
})

describe('hostile requests: agent input', () => {
  const notInput = /^agent\.run: input must be a string or \{ message: string \}$/
  it.each([
    ['a message object with a role instead of text', { role: 'human', content: 'hi' }, /^agent\.run: input: unknown option "role"; the options are message$/],
    ['a message that is a number', { message: 42 }, /^agent\.run: input: message must be a string, got 42$/],
    ['a message that is null', { message: null }, /^agent\.run: input: message must be a string, got null$/],
    ['an array of messages', [{ role: 'user', content: 'hi' }], /^agent\.run: input: options must be an object/],
    ['null', null, notInput],
    ['a number', 7, notInput],
  ])('agent.run refuses %s with a TypeError, before any provider call', async (_name, input, message) => {
    const provider = recording()
    const agent = Agent.create({ provider }).build()
    await expect(agent.run(input as never)).rejects.toThrow(message)
    await expect(agent.run(input as never)).rejects.toThrow(TypeError)
    expect(() => agent.stream(input as never)).toThrow(TypeError)
    expect(provider.seen).toEqual([])
    expect(agent.history).toEqual([])
  })

  it.each([
    ['a role beside the message', { message: 'hi', role: 'user' }, /unknown option "role"; the options are message/],
    ['a misspelt message', { messag: 'hi' }, /unknown option "messag" \(did you mean "message"\?\)/],
    ['messages', { messages: [{ role: 'user', content: 'hi' }] }, /unknown option "messages" \(did you mean "message"\?\)/],
  ])('refuses an input object with %s through its contract, in every run and in stream', async (_name, input, message) => {
    const provider = recording()
    const agent = Agent.create({ provider }).build()
    for (const run of [agent.run, agent.runTyped, agent.runDetailed].map((f) => f.bind(agent))) {
      await expect(run(input as never)).rejects.toThrow(new RegExp(`^agent\\.run: input: ${message.source}`))
    }
    await expect((await agent.session()).run(input as never)).rejects.toThrow(message)
    expect(() => agent.stream(input as never)).toThrow(new RegExp(`^agent\\.stream: input: ${message.source}`))
    expect(provider.seen).toEqual([])
    expect(agent.history).toEqual([])
  })
})
