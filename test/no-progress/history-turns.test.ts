import { describe, expect, it } from 'vitest'
import { historyTurns, lastVerdict, NO_PROGRESS_DEFAULTS } from '../../src/agent/no-progress/index.ts'
import type { Message } from '../../src/index.ts'

/** One model turn calling `search` with id `id` (a local server numbers its ids per answer: `call_0` every turn), then its result. */
const searched = (q: number, id: string, error?: string): Message[] => [
  { role: 'assistant', content: '', toolCalls: [{ id, name: 'search', args: { q } }] },
  { role: 'tool', content: error ?? `hits for ${q}`, toolCallId: id, toolName: 'search', ...(error === undefined ? {} : { isError: true }) },
]

describe('historyTurns', () => {
  it('pairs each tool result with its own call when the model reuses its call ids every turn', () => {
    const messages: Message[] = [
      { role: 'user', content: 'find it' },
      ...[1, 2, 3, 4].flatMap((q) => searched(q, 'call_0')),
      ...searched(5, 'call_0', 'HTTP 500 from upstream'),
    ]
    const errors = historyTurns(messages).map((t) => t.events.map((e) => (e.kind === 'call' ? (e.error ?? 'ok') : e.text)))
    expect(errors).toEqual([['ok'], ['ok'], ['ok'], ['ok'], ['HTTP 500 from upstream']])
    // Five different searches, one failing: no loop, where the last result read as every call's was a repeated error.
    expect(lastVerdict(NO_PROGRESS_DEFAULTS, historyTurns(messages))).toBeUndefined()
  })

  it('pairs the results of two calls of one turn that share an id in order', () => {
    const messages: Message[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'dup', name: 'a', args: {} },
          { id: 'dup', name: 'b', args: {} },
        ],
      },
      { role: 'tool', content: 'TOOL_ERROR: a failed', toolCallId: 'dup', toolName: 'a', isError: true },
      { role: 'tool', content: 'fine', toolCallId: 'dup', toolName: 'b' },
    ]
    expect(historyTurns(messages)[0]?.events).toEqual([
      { kind: 'call', tool: 'a', args: {}, error: 'TOOL_ERROR: a failed' },
      { kind: 'call', tool: 'b', args: {} },
    ])
  })

  it('reads a result that answers no call of the turn before it as answering nothing', () => {
    const messages: Message[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'x', name: 'a', args: {} }] },
      { role: 'tool', content: 'boom', toolCallId: 'y', toolName: 'a', isError: true },
    ]
    expect(historyTurns(messages)[0]?.events).toEqual([{ kind: 'call', tool: 'a', args: {} }])
  })
})
