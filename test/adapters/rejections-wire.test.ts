import { createOpenAI } from '@ai-sdk/openai'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  contextWindowCheck,
  createGate,
  dropRetryEchoRule,
  failoverRule,
  largerWindowRule,
  lowerMaxTokensRule,
  retryTransient,
  strictOutputRules,
  trimWindowRule,
  type Message,
} from '../../src/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { Refund, validRefundJson } from '../support/schemas.ts'
import { anthropicText } from './support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from './support/loopback-server.ts'
import { openaiSse, openaiText } from './support/openai-wire.ts'
import {
  ANTHROPIC_CONTEXT_OVERFLOW,
  ANTHROPIC_SCHEMA_REJECTED,
  ANTHROPIC_TOO_LARGE,
  ANTHROPIC_UNSUPPORTED,
  OPENAI_CONTEXT_OVERFLOW,
  OPENAI_SCHEMA_REJECTED,
  OPENAI_UNSUPPORTED_PARAMETER,
  PROXY_413,
  rejection,
} from './support/rejection-bodies.ts'

let server: LoopbackServer
const openaiClient = () => new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k', maxRetries: 0, timeout: 5_000 })
const anthropicClient = () => new Anthropic({ baseURL: server.url, apiKey: 'k', maxRetries: 0, timeout: 5_000 })
const gpt = () => openai({ client: openaiClient() })
const claude = () => anthropic({ client: anthropicClient() })
/** Every default rule that retries or fails over: none may re-send a refused request. */
const defaults = () => [retryTransient({ maxRetries: 3 }), failoverRule(), ...strictOutputRules(3)]

/** A frozen conversation of three user turns, as a session would hand it. */
function history(): readonly Message[] {
  return Object.freeze(
    [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'first answer' },
      { role: 'user', content: 'second question' },
      { role: 'assistant', content: 'second answer' },
      { role: 'user', content: 'third question' },
    ].map((m) => Object.freeze(m as Message)),
  )
}

beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

function script(replies: readonly Reply[]): void {
  server.script(replies)
  server.requests.length = 0
}

describe('requests the provider refuses, on the wire', () => {
  it.each([
    ['context-overflow', rejection(400, OPENAI_CONTEXT_OVERFLOW)],
    ['unsupported-parameter', rejection(400, OPENAI_UNSUPPORTED_PARAMETER)],
    ['payload-too-large', PROXY_413],
  ] as const)('an OpenAI %s fails fast with its kind after exactly one request', async (kind, reply) => {
    script([reply, openaiText('never asked')])
    const gate = createGate({ providers: gpt(), model: 'gpt-4o', postDecide: defaults() })
    await expect(gate.run({ messages: history() })).rejects.toMatchObject({ name: 'ReliabilityFailFastError', kind })
    expect(server.requests).toHaveLength(1)
  })

  it('an OpenAI schema-rejected fails fast with one request, whatever the structured-output rules', async () => {
    script([rejection(400, OPENAI_SCHEMA_REJECTED), openaiText(validRefundJson)])
    const gate = createGate({ providers: gpt(), model: 'gpt-4o', outputSchema: Refund, postDecide: defaults() })
    await expect(gate.run({ messages: history() })).rejects.toMatchObject({ kind: 'schema-rejected' })
    expect(server.requests).toHaveLength(1)
  })

  it.each([
    ['context-overflow', rejection(400, ANTHROPIC_CONTEXT_OVERFLOW)],
    ['payload-too-large', rejection(413, ANTHROPIC_TOO_LARGE)],
    ['schema-rejected', rejection(400, ANTHROPIC_SCHEMA_REJECTED)],
    ['unsupported-parameter', rejection(400, ANTHROPIC_UNSUPPORTED)],
  ] as const)('an Anthropic %s fails fast with its kind after exactly one request', async (kind, reply) => {
    script([reply, anthropicText('never asked')])
    const gate = createGate({ providers: claude(), model: 'claude-sonnet-4', postDecide: defaults() })
    await expect(gate.run({ messages: history() })).rejects.toMatchObject({ kind })
    expect(server.requests).toHaveLength(1)
  })

  it('never re-sends a refused request unchanged, even when a rule asks to retry its kind', async () => {
    script([rejection(400, OPENAI_CONTEXT_OVERFLOW), openaiText('never asked')])
    const gate = createGate({
      providers: gpt(),
      model: 'gpt-4o',
      postDecide: [{ when: (s) => s.errorKind === 'context-overflow', then: 'retry', kind: 'mine', failuresOnly: true }],
    })
    await expect(gate.run({ messages: history() })).rejects.toMatchObject({ kind: 'context-overflow' })
    expect(server.requests).toHaveLength(1)
  })

  it('trimWindowRule retries with the oldest turns dropped at a user message; the caller messages stay', async () => {
    script([rejection(400, OPENAI_CONTEXT_OVERFLOW), openaiText('fits now')])
    const messages = history()
    const before = structuredClone(messages)
    const gate = createGate({ providers: gpt(), model: 'gpt-4o', postDecide: [trimWindowRule({ dropFraction: 0.3 }), ...defaults()] })
    const result = await gate.run({ messages })
    expect(result.response.content).toBe('fits now')
    const [first, second] = server.requests.map((r) => r.body.messages as { role: string; content: string }[])
    expect(first?.map((m) => m.content)).toEqual(before.map((m) => m.content))
    expect(second?.map((m) => m.content)).toEqual(['be brief', 'second question', 'second answer', 'third question'])
    expect(messages).toEqual(before)
  })

  it('trimWindowRule stops at the last user turn: then the run fails with context-overflow', async () => {
    script([rejection(400, OPENAI_CONTEXT_OVERFLOW)])
    const gate = createGate({ providers: gpt(), model: 'gpt-4o', postDecide: [trimWindowRule({ dropFraction: 0.3 }), ...defaults()] })
    await expect(gate.run({ messages: history() })).rejects.toMatchObject({ kind: 'context-overflow' })
    const sent = server.requests.map((r) => (r.body.messages as unknown[]).length)
    expect(sent).toEqual([6, 4, 2])
  })

  it('trimWindowRule drops at least half the history by default, cut at the next user message', async () => {
    script([rejection(400, ANTHROPIC_CONTEXT_OVERFLOW), anthropicText('fits now')])
    const gate = createGate({ providers: claude(), model: 'claude-sonnet-4', postDecide: [trimWindowRule()] })
    await gate.run({ messages: history() })
    const second = server.requests[1]?.body as { messages: { role: string; content: unknown }[] }
    expect(second.messages).toHaveLength(1)
    expect(second.messages[0]?.role).toBe('user')
    expect(JSON.stringify(second.messages[0]?.content)).toContain('third question')
  })

  it('lowerMaxTokensRule retries with half the maxTokens', async () => {
    script([rejection(400, OPENAI_CONTEXT_OVERFLOW), openaiText('fits now')])
    const gate = createGate({ providers: gpt(), model: 'gpt-4o', postDecide: [lowerMaxTokensRule(), ...defaults()] })
    await gate.run({ messages: history(), maxTokens: 8_000 })
    expect(server.requests.map((r) => r.body.max_completion_tokens)).toEqual([8_000, 4_000])
  })

  it('lowerMaxTokensRule lowers an Anthropic max_tokens too', async () => {
    script([rejection(400, ANTHROPIC_CONTEXT_OVERFLOW), anthropicText('fits now')])
    const gate = createGate({ providers: claude(), model: 'claude-sonnet-4', postDecide: [lowerMaxTokensRule({ minTokens: 1_000 })] })
    await gate.run({ messages: history(), maxTokens: 4_096 })
    expect(server.requests.map((r) => r.body.max_tokens)).toEqual([4_096, 2_048])
  })

  it('largerWindowRule retries on a model of a larger window from the table the user extended', async () => {
    script([rejection(400, OPENAI_CONTEXT_OVERFLOW), openaiText('fits now')])
    const gate = createGate({
      providers: gpt(),
      model: 'my-small',
      postDecide: [largerWindowRule({ models: { 'my-small': { contextWindow: 8_000 }, 'my-large': { contextWindow: 64_000 } }, to: ['my-large'] })],
    })
    await gate.run({ messages: history() })
    expect(server.requests.map((r) => r.body.model)).toEqual(['my-small', 'my-large'])
  })

  it('dropRetryEchoRule sends the next retry without the echo of the rejected answer, feedback kept', async () => {
    const longBad = `{"orderId": "42", "note": "${'x'.repeat(2_000)}"}`
    script([openaiText(longBad), rejection(400, OPENAI_CONTEXT_OVERFLOW), openaiText(validRefundJson)])
    const gate = createGate({ providers: gpt(), model: 'gpt-4o', outputSchema: Refund, postDecide: [dropRetryEchoRule(), ...defaults()] })
    const result = await gate.run({ messages: history() })
    expect(result.value).toBeDefined()
    const roles = server.requests.map((r) => (r.body.messages as { role: string }[]).map((m) => m.role))
    expect(roles[1]?.slice(-2)).toEqual(['assistant', 'user'])
    expect(roles[2]).toEqual([...(roles[0] ?? []), 'user'])
  })

  it('dropRetryEchoRule on a 413 shortens the echo to keepChars', async () => {
    const longBad = `{"orderId": "42", "note": "${'x'.repeat(2_000)}"}`
    script([openaiText(longBad), PROXY_413, openaiText(validRefundJson)])
    const gate = createGate({ providers: gpt(), model: 'gpt-4o', outputSchema: Refund, postDecide: [dropRetryEchoRule({ keepChars: 100 }), ...defaults()] })
    await gate.run({ messages: history() })
    const echo = (r: { body: { messages: { role: string; content: string }[] } }) => r.body.messages.at(-2)?.content ?? ''
    expect(echo(server.requests[1] as never).length).toBeGreaterThan(100)
    expect(echo(server.requests[2] as never).length).toBeLessThanOrEqual(100 + '…[cut]'.length)
  })

  it('contextWindowCheck refuses a request that cannot fit before any request is sent', async () => {
    script([openaiText('never asked')])
    const gate = createGate({ providers: gpt(), model: 'gpt-4', preCheck: [contextWindowCheck()], postDecide: defaults() })
    const messages: Message[] = [{ role: 'user', content: 'y'.repeat(30_000) }]
    await expect(gate.run({ messages, maxTokens: 1_000 })).rejects.toMatchObject({ kind: 'context-overflow' })
    expect(server.requests).toHaveLength(0)
    // A model the table does not know is let through.
    script([openaiText('asked')])
    const unknown = createGate({ providers: gpt(), model: 'gpt-test', preCheck: [contextWindowCheck()] })
    await expect(unknown.run({ messages, maxTokens: 1_000 })).resolves.toMatchObject({ response: { content: 'asked' } })
    expect(server.requests).toHaveLength(1)
  })

  it('the AI SDK OpenAI model: an APICallError of a context overflow is typed, sent once, and trimmed by the rule', async () => {
    script([rejection(400, OPENAI_CONTEXT_OVERFLOW), openaiText('fits now')])
    const model = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'k' }).chat('gpt-4o')
    const plain = createGate({ providers: aiSdk(model), postDecide: defaults() })
    await expect(plain.run({ messages: history() })).rejects.toMatchObject({ kind: 'context-overflow' })
    expect(server.requests).toHaveLength(1)
    script([rejection(400, OPENAI_CONTEXT_OVERFLOW), openaiText('fits now')])
    const trimmed = createGate({ providers: aiSdk(model), postDecide: [trimWindowRule({ dropFraction: 0.3 })] })
    await expect(trimmed.run({ messages: history() })).resolves.toMatchObject({ response: { content: 'fits now' } })
    expect(server.requests.map((r) => (r.body.messages as unknown[]).length)).toEqual([6, 4])
  })
})

describe('refusals of a streamed run, on the wire', () => {
  it('gate.stream: an Anthropic context overflow rejects with its kind after one request; trimWindowRule retries trimmed', async () => {
    script([rejection(400, ANTHROPIC_CONTEXT_OVERFLOW), anthropicText('never')])
    const plain = createGate({ providers: claude(), model: 'claude-sonnet-4', postDecide: defaults() })
    const failed = plain.stream({ messages: history() }, { mode: 'buffer' })
    await expect(failed.result).rejects.toMatchObject({ kind: 'context-overflow' })
    expect(server.requests).toHaveLength(1)
    script([rejection(400, OPENAI_CONTEXT_OVERFLOW), openaiSse('fits now')])
    const gate = createGate({ providers: gpt(), model: 'gpt-4o', postDecide: [trimWindowRule({ dropFraction: 0.3 })] })
    const result = await gate.stream({ messages: history() }, { mode: 'buffer' }).result
    expect(result.response.content).toBe('fits now')
    expect(server.requests.map((r) => (r.body.messages as unknown[]).length)).toEqual([6, 4])
  })
})

describe('hostile refusals, on the wire', () => {
  it('a 400 whose body is not JSON is read by its text, sent once', async () => {
    script([{ kind: 'raw', status: 400, contentType: 'text/plain', body: 'prompt is too long: 215034 tokens > 200000 maximum' }, anthropicText('never')])
    const gate = createGate({ providers: claude(), model: 'claude-sonnet-4', postDecide: defaults() })
    await expect(gate.run({ messages: history() })).rejects.toMatchObject({ kind: 'context-overflow' })
    expect(server.requests).toHaveLength(1)
  })

  it('a 400 of plain text naming nothing stays unknown and is not retried', async () => {
    script([{ kind: 'raw', status: 400, contentType: 'text/html', body: '<html><body>Bad Request</body></html>' }, openaiText('never')])
    const gate = createGate({ providers: gpt(), model: 'gpt-4o', postDecide: defaults() })
    await expect(gate.run({ messages: history() })).rejects.toMatchObject({ kind: 'unknown' })
    expect(server.requests).toHaveLength(1)
  })

  it('a huge refusal body is classified from its start, sent once', async () => {
    const body = { error: { ...OPENAI_CONTEXT_OVERFLOW.error, message: `${OPENAI_CONTEXT_OVERFLOW.error.message} ${'x'.repeat(4_000_000)}` } }
    script([rejection(400, body), openaiText('never')])
    const gate = createGate({ providers: gpt(), model: 'gpt-4o', postDecide: defaults() })
    await expect(gate.run({ messages: history() })).rejects.toMatchObject({ kind: 'context-overflow' })
    expect(server.requests).toHaveLength(1)
  })

  it('a 500 whose message says the context overflowed is a transient http-5xx, retried as one', async () => {
    const body = { error: { ...OPENAI_CONTEXT_OVERFLOW.error, type: 'server_error', code: null } }
    script([rejection(500, body), openaiText('fine')])
    const gate = createGate({ providers: gpt(), model: 'gpt-4o', postDecide: [retryTransient({ backoff: () => 0 })] })
    const result = await gate.run({ messages: history() })
    expect(result.attempts.map((a) => a.errorKind)).toEqual(['http-5xx', 'ok'])
  })
})
