import { describe, expect, it } from 'vitest'
import { Agent, isSessionFormatError, memorySessionStore, type Message, type Provider, type SessionFormatError, type SessionStore } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { checkLoadedMessages } from '../../src/sessions/index.ts'
import { exchangeOf, freshId } from './support/session-store-contract.ts'
import { eachRawStore } from './support/raw-stores.ts'

const good = JSON.stringify({ f: 1, m: exchangeOf('ok') })
const record = (...messages: unknown[]): string => JSON.stringify({ f: 1, m: messages })
const user = { role: 'user', content: 'question' }
const call = { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'lookup', args: { order: 1 } }] }

/** Stored records edited behind the store, and the field each load must name. */
const CORRUPTED: readonly (readonly [string, readonly string[], string])[] = [
  ['a record that is a number', ['42'], 'exchanges[0].f'],
  ['a record that is not JSON', ['{"f":1,"m":['], 'exchanges[0]'],
  ['a record without messages', ['{"f":1}'], 'exchanges[0].m'],
  ['a record with no message', [record()], 'exchanges[0].m'],
  ['a record with a field of its own', ['{"f":1,"m":[{"role":"user","content":"q"}],"x":1}'], 'exchanges[0].x'],
  ['a message that is a number', [record(user, 42)], 'messages[1]'],
  ['a message of role hacker', [record(user, { role: 'hacker', content: 'obey me' })], 'messages[1].role'],
  ['a message without content', [record({ role: 'user' })], 'messages[0].content'],
  ['a message whose content is an array', [record({ role: 'user', content: [{ type: 'text', text: 'x' }] })], 'messages[0].content'],
  ['toolCalls that are a string', [record(user, { role: 'assistant', content: '', toolCalls: 'zz' })], 'messages[1].toolCalls'],
  ['a tool call without a name', [record(user, { role: 'assistant', content: '', toolCalls: [{ id: 'c1', args: {} }] })], 'messages[1].toolCalls[0].name'],
  [
    'a tool call whose id is a number',
    [record(user, { role: 'assistant', content: '', toolCalls: [{ id: 7, name: 'x', args: {} }] })],
    'messages[1].toolCalls[0].id',
  ],
  ['tool calls on a user message', [record({ role: 'user', content: 'q', toolCalls: [] })], 'messages[0].toolCalls'],
  ['a tool result answering no call', [record(user, { role: 'tool', content: 'r', toolCallId: 'c1', toolName: 'lookup' })], 'messages[1].toolCallId'],
  ['a tool result without a call id', [record(user, call, { role: 'tool', content: 'r' })], 'messages[2].toolCallId'],
  [
    'a tool result answering a call twice',
    [record(user, call, { role: 'tool', content: 'r', toolCallId: 'c1' }, { role: 'tool', content: 'r', toolCallId: 'c1' })],
    'messages[3].toolCallId',
  ],
  [
    'a tool result answering a call of another exchange',
    [record(user, call), record(user, { role: 'tool', content: 'r', toolCallId: 'c1' })],
    'messages[3].toolCallId',
  ],
  ['isError that is a string', [record(user, call, { role: 'tool', content: 'r', toolCallId: 'c1', isError: 'yes' })], 'messages[2].isError'],
  ['reasoning that is a string', [record(user, { role: 'assistant', content: 'a', reasoning: 'hmm' })], 'messages[1].reasoning'],
  ['an ephemeral message', [record(user, { role: 'user', content: 'EPHEMERAL-FEEDBACK fix the JSON', ephemeral: true })], 'messages[1].ephemeral'],
  ['a message flagged ephemeral: false', [record(user, { role: 'assistant', content: 'a', ephemeral: false })], 'messages[1].ephemeral'],
  ['a message with a field of no message', [record({ role: 'user', content: 'q', cache_control: { type: 'ephemeral' } })], 'messages[0].cache_control'],
  ['a message with a __proto__ key', ['{"f":1,"m":[{"role":"user","content":"q","__proto__":{"role":"system"}}]}'], 'messages[0].__proto__'],
  ['a second exchange gone bad, named at its place in the conversation', [good, record({ role: 'hacker', content: 'x' })], 'messages[4].role'],
]

/** The error `load` rejected with (`undefined` when it resolved). */
async function loadError(store: SessionStore, id: string): Promise<unknown> {
  return store.load(id).then(
    () => undefined,
    (error: unknown) => error,
  )
}

eachRawStore('A stored conversation edited behind the store', (backend, kind) => {
  it.each(CORRUPTED)('%s: load refuses it with a SessionFormatError naming the conversation and the field', async (_name, bodies, field) => {
    const { store, write } = backend()
    const id = freshId(`corrupt-${kind}`)
    await write(id, bodies)
    const error = await loadError(store, id)
    expect(isSessionFormatError(error), String(error)).toBe(true)
    const failure = error as SessionFormatError
    expect(failure.conversation).toBe(id)
    expect(failure.field).toBe(field)
    expect(failure.message).toContain(`session "${id}"`)
    expect(failure.message).toContain(field)
    // What the record held is not replayed in the error either beyond a bounded quote.
    expect(failure.message.length).toBeLessThan(600)
  })

  it('opens no session on it: agent.session(id) rejects with the SessionFormatError, and no model call is made', async () => {
    const { store, write } = backend()
    const id = freshId(`agent-${kind}`)
    await write(id, [record(user, { role: 'user', content: 'EPHEMERAL-FEEDBACK', ephemeral: true })])
    const seen: unknown[] = []
    const base = scripted(['answer'])
    const provider: Provider = { name: 'spy', complete: (request) => (seen.push(request), base.complete(request)) }
    const agent = Agent.create({ provider, sessions: store }).build()
    const error = await agent.session(id).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isSessionFormatError(error)).toBe(true)
    expect((error as SessionFormatError).field).toBe('messages[1].ephemeral')
    expect(seen).toEqual([])
  })

  it.each([
    ['a __proto__ key', '{"order":1,"__proto__":{"polluted":true}}', 'messages[1].toolCalls[0].args.__proto__'],
    ['a constructor holding a prototype', '{"x":{"constructor":{"prototype":{"polluted":true}}}}', 'messages[1].toolCalls[0].args.x.constructor'],
    ['nesting 300 levels deep', `${'{"a":'.repeat(300)}1${'}'.repeat(300)}`, 'messages[1].toolCalls[0].args'],
  ])('tool call arguments holding %s: agent.session(id) rejects with a SessionFormatError, and no model call is made', async (_name, args, field) => {
    const { store, write } = backend()
    const id = freshId(`args-${kind}`)
    const body = `{"f":1,"m":[{"role":"user","content":"q"},{"role":"assistant","content":"","toolCalls":[{"id":"c1","name":"lookup","args":${args}}]},{"role":"tool","content":"r","toolCallId":"c1"},{"role":"assistant","content":"a"}]}`
    await write(id, [body])
    const seen: unknown[] = []
    const base = scripted(['answer'])
    const provider: Provider = { name: 'spy', complete: (request) => (seen.push(request), base.complete(request)) }
    const error = await Agent.create({ provider, sessions: store })
      .build()
      .session(id)
      .then(
        () => undefined,
        (e: unknown) => e,
      )
    expect(isSessionFormatError(error), String(error)).toBe(true)
    expect((error as SessionFormatError).field).toMatch(new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')}`))
    expect(seen).toEqual([])
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })

  it('loads what the library wrote, after an edited conversation is deleted and written again', async () => {
    const { store, write } = backend()
    const id = freshId(`repair-${kind}`)
    await write(id, [record({ role: 'hacker', content: 'x' })])
    await store.delete(id)
    await store.append(id, { exchange: exchangeOf('fresh'), expectedVersion: 0 })
    expect(await store.load(id)).toEqual({ messages: exchangeOf('fresh'), version: 1 })
  })

  if (kind === 'redis') {
    it('a key holding a string, not a list: load refuses it with a SessionFormatError, not a WRONGTYPE reply', async () => {
      const { store, writeString } = backend()
      const id = freshId('wrongtype')
      await writeString?.(id, '{"f":1,"m":[{"role":"user","content":"q"}]}')
      const error = await loadError(store, id)
      expect(isSessionFormatError(error), String(error)).toBe(true)
      expect((error as SessionFormatError).field).toBe('key')
      expect((error as Error).message).toMatch(/holds a Redis string, not a list/)
    })
  } else {
    const versions: (readonly [string, number | string])[] = [
      ['a version above the exchanges stored', 3],
      ['a version below the exchanges stored', 1],
    ]
    // SQLite keeps any value in any column; PostgreSQL's integer column holds only integers.
    if (kind === 'sqlite') versions.push(['a version that is text', 'two'], ['a negative version', -1])
    it('exchanges left without their conversation row: load refuses them with a SessionFormatError on the version, a commit writes nothing, and delete repairs it', async () => {
      const { store, write, dropHead } = backend()
      const id = freshId(`headless-${kind}`)
      await write(id, [good, good])
      await dropHead?.(id)
      const error = await loadError(store, id)
      expect(isSessionFormatError(error), String(error)).toBe(true)
      expect((error as SessionFormatError).field).toBe('version')
      expect((error as Error).message).toContain('the number of stored exchanges (2)')
      await expect(store.append(id, { exchange: exchangeOf('more'), expectedVersion: 0 })).rejects.toThrow()
      await store.delete(id)
      await store.append(id, { exchange: exchangeOf('fresh'), expectedVersion: 0 })
      expect(await store.load(id)).toEqual({ messages: exchangeOf('fresh'), version: 1 })
    })

    it.each(versions)('%s: load refuses it with a SessionFormatError on the version', async (_name, version) => {
      const { store, write } = backend()
      const id = freshId(`version-${kind}`)
      await write(id, [good, good], version)
      const error = await loadError(store, id)
      expect(isSessionFormatError(error)).toBe(true)
      expect((error as SessionFormatError).field).toBe('version')
    })
  }

  if (kind === 'sqlite') {
    it('a version edited into text: a commit on it is refused too, and writes nothing', async () => {
      const { store, write } = backend()
      const id = freshId('version-text')
      await write(id, [good], 'one')
      const error = await store.append(id, { exchange: exchangeOf('more'), expectedVersion: 1 }).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(isSessionFormatError(error)).toBe(true)
      await write(id, [good], 1)
      expect((await store.load(id)).version).toBe(1)
    })
  }
})

/** An exchange with every field of the format, and the same after a store's round trip. */
const FULL: Message[] = [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: 'question full' },
  {
    role: 'assistant',
    content: '',
    reasoning: [
      { text: 'thinking', signature: 'sig' },
      { text: '', redactedData: 'opaque', providerMetadata: { anthropic: { x: 1 } } },
    ],
    toolCalls: [
      { id: 'a', name: 'lookup', args: { order: 1 } },
      { id: 'b', name: 'lookup', args: 'not json' },
    ],
  },
  { role: 'tool', content: 'one', toolCallId: 'a', toolName: 'lookup' },
  { role: 'tool', content: 'TOOL_ERROR', toolCallId: 'b', toolName: 'lookup', isError: true },
  { role: 'assistant', content: 'answer full' },
]

describe('checkLoadedMessages (for a store of your own)', () => {
  it('passes what the library writes and refuses what it refuses, with the same SessionFormatError', () => {
    expect(checkLoadedMessages('own', FULL)).toBe(FULL)
    let error: unknown
    try {
      checkLoadedMessages('own', [user, { role: 'assistant', content: '', toolCalls: 'zz' }])
    } catch (e) {
      error = e
    }
    expect(isSessionFormatError(error)).toBe(true)
    expect(error).toMatchObject({ conversation: 'own', field: 'messages[1].toolCalls' })
  })
})

describe('SessionStore append (memory)', () => {
  it('stores an exchange with every field of the message format and loads it equal', async () => {
    const store = memorySessionStore()
    await store.append('full', { exchange: FULL, expectedVersion: 0 })
    expect(await store.load('full')).toEqual({ messages: FULL, version: 1 })
  })

  it('keeps only the fields of the format: an extra field of a caller, ephemeral: false and undefined fields are not stored', async () => {
    const store = memorySessionStore()
    const extra = [
      { role: 'user', content: 'q', ephemeral: false, providerData: { secret: 1 }, toolName: undefined },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'n', args: {}, index: 0 }] },
      { role: 'tool', content: 'r', toolCallId: 'c' },
    ] as unknown as Message[]
    await store.append('extra', { exchange: extra, expectedVersion: 0 })
    expect((await store.load('extra')).messages).toStrictEqual([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'n', args: {} }] },
      { role: 'tool', content: 'r', toolCallId: 'c' },
    ])
  })

  it.each([
    ['a role of no one', [{ role: 'hacker', content: 'x' }], /exchange\[0\]\.role must be one of "system", "user", "assistant", "tool", got "hacker"/],
    ['toolCalls that are a string', [user, { role: 'assistant', content: '', toolCalls: 'zz' }], /exchange\[1\]\.toolCalls must be an array/],
    ['a tool result answering no call', [user, { role: 'tool', content: 'r', toolCallId: 'nope' }], /exchange\[1\]\.toolCallId/],
    ['content that is no string', [{ role: 'user', content: 42 }], /exchange\[0\]\.content must be a string/],
  ])('refuses %s with a TypeError naming the field, and stores nothing', async (_name, exchange, message) => {
    const store = memorySessionStore()
    await expect(store.append('bad', { exchange: exchange as Message[], expectedVersion: 0 })).rejects.toThrow(message)
    await expect(store.append('bad', { exchange: exchange as Message[], expectedVersion: 0 })).rejects.toBeInstanceOf(TypeError)
    expect(await store.load('bad')).toEqual({ messages: [], version: 0 })
  })
})
