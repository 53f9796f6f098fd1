import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Agent, memorySessionStore, type Message } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { windowHistory } from '../../src/sessions/index.ts'

/** One exchange: a user message, `tools` tool turns (an assistant's calls and their results), the answer. */
function exchange(tag: string, tools: number, calls: number): Message[] {
  const out: Message[] = [{ role: 'user', content: `q${tag}` }]
  for (let t = 0; t < tools; t++) {
    const ids = Array.from({ length: calls }, (_, c) => `${tag}-${t}-${c}`)
    out.push({ role: 'assistant', content: '', toolCalls: ids.map((id) => ({ id, name: 'f', args: { id } })) })
    for (const id of ids) out.push({ role: 'tool', content: `r${id}`, toolCallId: id, toolName: 'f' })
  }
  out.push({ role: 'assistant', content: `a${tag}` })
  return out
}

const conversation = fc
  .tuple(fc.boolean(), fc.array(fc.tuple(fc.nat(3), fc.integer({ min: 1, max: 3 })), { maxLength: 30 }))
  .map(([system, shapes]) => [
    ...(system ? [{ role: 'system' as const, content: 'you are a bot' }] : []),
    ...shapes.flatMap(([tools, calls], i) => exchange(String(i), tools, calls)),
  ])
const window = fc.record({
  maxMessages: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
  maxTokens: fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
})

describe('windowHistory', () => {
  it('keeps a suffix that starts at a user message, never orphans a tool result, keeps the system prompt and respects both bounds', () => {
    fc.assert(
      fc.property(conversation, window, (history, w) => {
        const kept = windowHistory(history, w)
        const system = history.filter((m) => m.role === 'system')
        expect(kept.slice(0, system.length)).toEqual(system)
        const body = kept.slice(system.length)
        // A suffix of the history.
        expect(body).toEqual(history.slice(history.length - body.length))
        if (body.length > 0) expect(body[0]?.role).toBe('user')
        const offered = new Set(body.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id)))
        for (const m of body) if (m.role === 'tool') expect(offered.has(m.toolCallId as string)).toBe(true)
        for (const m of body) for (const c of m.toolCalls ?? []) expect(body.some((r) => r.toolCallId === c.id)).toBe(true)
        if (w.maxMessages !== undefined) expect(body.length).toBeLessThanOrEqual(w.maxMessages)
        if (w.maxTokens !== undefined) {
          const tokens = body.reduce(
            (n, m) => n + Math.ceil((m.content.length + (m.toolCalls ?? []).reduce((k, c) => k + c.name.length + JSON.stringify(c.args).length, 0)) / 4) + 4,
            0,
          )
          expect(tokens).toBeLessThanOrEqual(w.maxTokens)
        }
      }),
    )
  })

  it('keeps as many whole exchanges as fit: the last N messages when they start at a user message', () => {
    const history = [...exchange('0', 0, 1), ...exchange('1', 0, 1), ...exchange('2', 1, 2)]
    expect(windowHistory(history, { maxMessages: 7 })).toEqual(history.slice(2))
    expect(windowHistory(history, { maxMessages: 6 })).toEqual(history.slice(4))
    // The last exchange alone is longer than the window: none of it, rather than half of it.
    expect(windowHistory(history, { maxMessages: 4 })).toEqual([])
    expect(windowHistory(history, { maxMessages: 100 })).toBe(history)
  })

  it('reads a 10,000-message conversation within a bound, keeping only what fits', () => {
    const history = Array.from({ length: 2_500 }, (_, i) => exchange(String(i), 1, 1)).flat()
    expect(history).toHaveLength(10_000)
    const kept = windowHistory(history, { maxMessages: 40, maxTokens: 2_000 })
    expect(kept.length).toBeLessThanOrEqual(40)
    expect(kept.at(-1)).toBe(history.at(-1))
  })

  it('takes a token estimate of yours', () => {
    const history = [...exchange('0', 0, 1), ...exchange('1', 0, 1)]
    expect(windowHistory(history, { maxTokens: 2, estimateTokens: () => 1 }).map((m) => m.content)).toEqual(['q1', 'a1'])
  })
})

describe('a session window', () => {
  it('sends the system prompt and the window of the history, and stores the history whole', async () => {
    const store = memorySessionStore()
    const provider = scripted(['a0', 'a1', 'a2'])
    const agent = Agent.create({ provider, sessions: store }).system('be brief').build()
    const session = await agent.session('windowed', { window: { maxMessages: 2 } })
    for (const q of ['q0', 'q1', 'q2']) await session.run(q)
    const last = provider.requests[2]
    expect(last?.system).toBe('be brief')
    expect(last?.messages.map((m) => m.content)).toEqual(['q1', 'a1', 'q2'])
    expect((await store.load('windowed')).messages.map((m) => m.content)).toEqual(['q0', 'a0', 'q1', 'a1', 'q2', 'a2'])
    expect(session.history).toHaveLength(6)
  })
})
