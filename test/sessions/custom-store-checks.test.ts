import { describe, expect, it } from 'vitest'
import { Agent, isSessionFormatError, type SessionStore } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'

/** A store of the user's own that answers `load` with `messages` and counts what it was asked. */
function customStore(messages: unknown): SessionStore & { readonly calls: string[] } {
  const calls: string[] = []
  return {
    calls,
    load: async (id) => {
      calls.push(`load ${id}`)
      return { messages, version: 1 } as never
    },
    append: async (_id, request) => {
      calls.push('append')
      return { version: request.expectedVersion + 1 } as never
    },
    delete: async (id) => {
      calls.push(`delete ${id}`)
    },
  }
}

const agentOn = (store: SessionStore, answers: string[] = ['ok']) => {
  const provider = scripted(answers)
  const agent = Agent.create({ provider, model: 'm', name: 'support', sessions: store }).build()
  return { agent, provider }
}

describe('agent.session on a store of the user', () => {
  it.each([
    ['a message that is a number', [42], /messages\[0\]/],
    ['a role the library does not write', [{ role: 'hacker', content: 'x' }], /messages\[0\]\.role/],
    ['toolCalls that are no list', [{ role: 'assistant', content: '', toolCalls: 'zz' }], /messages\[0\]\.toolCalls/],
    [
      'an ephemeral message',
      [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'retry feedback', ephemeral: true },
      ],
      /ephemeral/,
    ],
  ])('refuses a loaded conversation holding %s with a SessionFormatError naming the id and the field', async (_, messages, field) => {
    const store = customStore(messages)
    const { agent, provider } = agentOn(store)
    const error = await agent.session('customer-42').then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(isSessionFormatError(error)).toBe(true)
    expect((error as Error).message).toContain('customer-42')
    expect((error as Error).message).toMatch(field)
    expect(provider.calls).toBe(0)
  })

  it('loads a well-formed conversation from it as it is', async () => {
    const history = [
      { role: 'user', content: 'Where is my order?' },
      { role: 'assistant', content: 'On its way.' },
    ]
    const { agent } = agentOn(customStore(history))
    const session = await agent.session('customer-42')
    expect(session.history).toEqual(history)
  })

  it.each([
    ['NUL', 'customer\u000042'],
    ['a lone surrogate', 'a\ud800'],
    ['an empty string', ''],
  ])('refuses an id holding %s before the store is asked anything', async (_, id) => {
    const store = customStore([])
    const { agent } = agentOn(store)
    await expect(agent.session(id)).rejects.toThrow(TypeError)
    expect(store.calls).toEqual([])
  })
})
