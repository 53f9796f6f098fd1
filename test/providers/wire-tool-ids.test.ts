import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Message, ModelRequest } from '../../src/index.ts'
import { toAiSdkPrompt } from '../../src/providers/ai-sdk/index.ts'
import { toAnthropicRequest } from '../../src/providers/anthropic/index.ts'
import { toOpenAIRequest } from '../../src/providers/openai/index.ts'

type Block = Record<string, unknown>
interface Wire {
  readonly uses: { readonly id: string; readonly n: number }[]
  readonly results: { readonly id: string; readonly content: string }[]
}

/** Each adapter's body for `messages`: its tool calls in order (with the argument `n`), and its tool results with the content they carry. */
const BODIES: readonly { readonly adapter: string; readonly wire: (messages: readonly Message[]) => Wire }[] = [
  {
    adapter: 'Anthropic Messages',
    wire: (messages) => {
      const body = toAnthropicRequest({ messages } as ModelRequest, { model: 'm', maxTokens: 10, cache: false, structuredOutput: false, extraBody: undefined })
      const blocks = body.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content)) as unknown as Block[]
      return {
        uses: blocks.filter((b) => b['type'] === 'tool_use').map((b) => ({ id: b['id'] as string, n: (b['input'] as { n: number }).n })),
        results: blocks.filter((b) => b['type'] === 'tool_result').map((b) => ({ id: b['tool_use_id'] as string, content: b['content'] as string })),
      }
    },
  },
  {
    adapter: 'OpenAI Chat Completions',
    wire: (messages) => {
      const body = toOpenAIRequest({ messages } as ModelRequest, { model: 'm', structuredOutput: false, schemaName: 'response', extraBody: undefined })
      const wire = body.messages as unknown as Block[]
      return {
        uses: wire.flatMap((m) =>
          ((m['tool_calls'] ?? []) as Block[]).map((c) => ({ id: c['id'] as string, n: JSON.parse((c['function'] as { arguments: string }).arguments).n })),
        ),
        results: wire.filter((m) => m['role'] === 'tool').map((m) => ({ id: m['tool_call_id'] as string, content: m['content'] as string })),
      }
    },
  },
  {
    adapter: 'AI SDK prompt',
    wire: (messages) => {
      const parts = toAiSdkPrompt(undefined, messages).flatMap((m): readonly unknown[] => (typeof m.content === 'string' ? [] : m.content)) as Block[]
      return {
        uses: parts.filter((p) => p['type'] === 'tool-call').map((p) => ({ id: p['toolCallId'] as string, n: (p['input'] as { n: number }).n })),
        results: parts
          .filter((p) => p['type'] === 'tool-result')
          .map((p) => ({ id: p['toolCallId'] as string, content: (p['output'] as { value: string }).value })),
      }
    },
  },
]

/** A tool loop turn: the assistant's calls with `ids`, then one result per call, in order. */
const turn = (ids: readonly string[]): Message[] => [
  { role: 'assistant', content: '', toolCalls: ids.map((id, n) => ({ id, name: 'lookup', args: { n } })) },
  ...ids.map((id, n): Message => ({ role: 'tool', content: `result ${n}`, toolCallId: id, toolName: 'lookup' })),
]

describe.each(BODIES)('$adapter body: tool call ids', ({ wire }) => {
  it('sends fit and unique ids as they are', () => {
    const { uses, results } = wire([{ role: 'user', content: 'go' }, ...turn(['toolu_01A', 'call_abc-9'])])
    expect(uses.map((u) => u.id)).toEqual(['toolu_01A', 'call_abc-9'])
    expect(results.map((r) => r.id)).toEqual(['toolu_01A', 'call_abc-9'])
  })

  it('gives a repeated id a suffix and pairs the n-th result with the n-th call', () => {
    const { uses, results } = wire([{ role: 'user', content: 'go' }, ...turn(['call_0', 'call_0', 'call_0']), ...turn(['call_0'])])
    expect(uses.map((u) => u.id)).toEqual(['call_0', 'call_0_2', 'call_0_3', 'call_0_4'])
    expect(results).toEqual([
      { id: 'call_0', content: 'result 0' },
      { id: 'call_0_2', content: 'result 1' },
      { id: 'call_0_3', content: 'result 2' },
      { id: 'call_0_4', content: 'result 0' },
    ])
  })

  it('writes characters the API refuses as _ (a run id of the caller, an id from another provider) without meeting another id', () => {
    const { uses, results } = wire([{ role: 'user', content: 'go' }, ...turn(['call_order:42_t1_0', 'call_order_42_t1_0', 'fc.7/x', ''])])
    expect(uses.map((u) => u.id)).toEqual(['call_order_42_t1_0', 'call_order_42_t1_0_2', 'fc_7_x', 'call'])
    expect(results.map((r) => r.id)).toEqual(uses.map((u) => u.id))
  })

  it('always sends ids the API accepts, unique in the body, each result answering the call it answered in the conversation', () => {
    const id = fc.oneof(fc.constantFrom('call_0', 'call_1', 'a:b', 'a_b', 'a_b_2', ''), fc.string({ maxLength: 12 }))
    fc.assert(
      fc.property(fc.array(fc.array(id, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }), (turns) => {
        const messages: Message[] = [{ role: 'user', content: 'go' }, ...turns.flatMap((ids) => turn(ids))]
        const { uses, results } = wire(messages)
        const ids = uses.map((u) => u.id)
        expect(ids.every((i) => /^[A-Za-z0-9_-]+$/.test(i))).toBe(true)
        expect(new Set(ids).size).toBe(ids.length)
        // Turn by turn, the k-th result carries the id of the k-th call (both carry the call's place `n`).
        let at = 0
        for (const ids of turns) {
          for (let n = 0; n < ids.length; n++) {
            expect(results[at + n]).toEqual({ id: uses[at + n]?.id, content: `result ${n}` })
            expect(uses[at + n]?.n).toBe(n)
          }
          at += ids.length
        }
        // The same conversation gets the same ids on every request (the prompt cache reads them).
        expect(wire(messages)).toEqual({ uses, results })
      }),
    )
  })
})
