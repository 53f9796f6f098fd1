import Anthropic from '@anthropic-ai/sdk'
import { createGateway } from 'ai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGate, strictOutputRules, type GateStreamEvent, type Provider } from '../../src/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { retryTransient } from '../../src/rules/index.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { gatewayError, gatewaySse } from '../adapters/support/ai-sdk-wire.ts'
import { anthropicError, anthropicSse } from '../adapters/support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from '../adapters/support/loopback-server.ts'
import { openaiError, openaiSse } from '../adapters/support/openai-wire.ts'
import { collect } from '../support/collect-stream.ts'

// The invalid answer goes wrong early ("amount" is a string) and then keeps talking for a while.
const invalid = `{"orderId": "42", "amount": "USD 50", "action": "refund", "reason": "${'the customer says the parcel never arrived; '.repeat(6)}"}`

interface Wire {
  readonly name: string
  readonly provider: (server: LoopbackServer) => Provider
  readonly sse: (text: string, frameDelayMs?: number) => Reply
  readonly overloaded: Reply
  /** The text of the last message of a recorded request body (the feedback on a retry). */
  readonly lastText: (body: any) => string
}

const wires: readonly Wire[] = [
  {
    name: 'openai',
    provider: (s) => openai({ client: new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'k', maxRetries: 0 }), model: 'gpt-test' }),
    sse: (text, frameDelayMs) => openaiSse(text, { chunkSize: 4, ...(frameDelayMs !== undefined ? { frameDelayMs } : {}) }),
    overloaded: openaiError(503),
    lastText: (body) => body.messages.at(-1).content,
  },
  {
    name: 'anthropic',
    provider: (s) => anthropic({ client: new Anthropic({ baseURL: s.url, apiKey: 'k', maxRetries: 0 }), model: 'claude-test' }),
    sse: (text, frameDelayMs) => anthropicSse(text, { chunkSize: 4, ...(frameDelayMs !== undefined ? { frameDelayMs } : {}) }),
    overloaded: anthropicError(529, 'overloaded_error'),
    lastText: (body) => body.messages.at(-1).content.at(-1).text,
  },
  {
    name: 'ai-sdk',
    provider: (s) => aiSdk(createGateway({ baseURL: s.url, apiKey: 'k' })('openai/gpt-test')),
    sse: (text, frameDelayMs) => gatewaySse(text, { chunkSize: 4, ...(frameDelayMs !== undefined ? { frameDelayMs } : {}) }),
    overloaded: gatewayError(503, 'internal_server_error'),
    lastText: (body) => body.prompt.at(-1).content.at(-1).text,
  },
]

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const texts = (events: readonly GateStreamEvent<unknown>[]) => events.flatMap((e) => (e.type === 'text' ? [{ attempt: e.attempt, text: e.text }] : []))

describe.each(wires)('gate.stream over the $name SSE path', (wire) => {
  it('passthrough: fails over an overloaded first call before any content, then streams the valid answer', async () => {
    server.script([wire.overloaded, wire.sse(validRefundJson)])
    server.requests.length = 0
    const gate = createGate({
      providers: wire.provider(server),
      outputSchema: Refund,
      postDecide: [retryTransient({ maxRetries: 2, backoff: () => 0 }), ...strictOutputRules(3)],
    })
    const stream = gate.stream({ messages: [{ role: 'user', content: 'refund #42' }] }, { mode: 'passthrough' })
    const events = await collect(stream)
    expect(
      texts(events)
        .map((t) => t.text)
        .join(''),
    ).toBe(validRefundJson)
    expect(new Set(texts(events).map((t) => t.attempt))).toEqual(new Set([2]))
    expect((await stream.result).attempts.map((a) => a.errorKind)).toEqual(['http-5xx', 'ok'])
    expect(server.requests).toHaveLength(2)
  })

  it('passthrough: an invalid answer already delivered fails fast as mid-stream-not-retryable', async () => {
    server.script([wire.sse(invalid), wire.sse(validRefundJson)])
    server.requests.length = 0
    const gate = createGate({ providers: wire.provider(server), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const stream = gate.stream({ messages: [{ role: 'user', content: 'refund #42' }] }, { mode: 'passthrough' })
    await expect(collect(stream)).rejects.toMatchObject({ kind: 'mid-stream-not-retryable' })
    expect(server.requests).toHaveLength(1)
  })

  it('buffer: the consumer sees only the accepted answer; the retry carries the feedback', async () => {
    server.script([wire.sse(invalid), wire.sse(validRefundJson)])
    server.requests.length = 0
    const gate = createGate({ providers: wire.provider(server), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const failed: number[] = []
    gate.on('validation_failed', (e) => failed.push(e.attempt))
    const stream = gate.stream({ messages: [{ role: 'user', content: 'refund #42' }] }, { mode: 'buffer' })
    const events = await collect(stream)
    expect(texts(events).every((t) => t.attempt === 2)).toBe(true)
    expect(
      texts(events)
        .map((t) => t.text)
        .join(''),
    ).toBe(validRefundJson)
    expect(failed).toEqual([1])
    expect(wire.lastText(server.requests[1]?.body)).toContain(`- 'amount': expected number, got "USD 50"`)
    expect((await stream.result).value).toEqual(validRefund)
  })

  it('progressive: aborts the provider stream on the violation and retries with feedback', async () => {
    server.script([wire.sse(invalid, 3), wire.sse(validRefundJson)])
    server.requests.length = 0
    const gate = createGate({ providers: wire.provider(server), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const aborted: { attempt: number; path: string; consumedChars: number }[] = []
    gate.on('stream_aborted', (e) => aborted.push(e))
    const stream = gate.stream({ messages: [{ role: 'user', content: 'refund #42' }] }, { mode: 'progressive' })
    const events = await collect(stream)
    const result = await stream.result

    expect(aborted).toHaveLength(1)
    expect(aborted[0]).toMatchObject({ attempt: 1, path: 'amount' })
    expect(aborted[0]?.consumedChars).toBeLessThan(invalid.length / 4)
    // The server saw the client hang up before it had written the whole invalid answer.
    await expect.poll(() => server.requests[0]?.clientClosedEarly).toBe(true)
    expect(server.requests[0]?.framesWritten).toBeLessThan(invalid.length / 4)
    expect(wire.lastText(server.requests[1]?.body)).toMatch(/- 'amount': expected number, got "U/)
    expect(events.filter((e) => e.type === 'discarded')).toEqual([{ type: 'discarded', attempt: 1 }])
    expect(events.filter((e) => e.type === 'partial').at(-1)).toEqual({ type: 'partial', value: validRefund, attempt: 2 })
    expect(result.value).toEqual(validRefund)
    expect(result.attempts[0]?.usage.outputTokens).toBeGreaterThan(0)
  })
})
