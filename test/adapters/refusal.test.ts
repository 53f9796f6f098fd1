import Anthropic from '@anthropic-ai/sdk'
import { createGateway } from 'ai'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGate, isReliabilityFailFastError, strictOutputRules, type Provider, type ReliabilityRule } from '../../src/index.ts'
import { aiSdk } from '../../src/providers/ai-sdk/index.ts'
import { anthropic } from '../../src/providers/anthropic/index.ts'
import { openai } from '../../src/providers/openai/index.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { collect } from '../support/collect-stream.ts'
import { gatewayText } from './support/ai-sdk-wire.ts'
import { anthropicText } from './support/anthropic-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from './support/loopback-server.ts'
import { openaiCompletion, openaiSse, openaiText } from './support/openai-wire.ts'

const refusalText = "I can't help with that request."
const partial = '{"orderId": "42", "action": "ref'

/** A chat.completion whose single choice carries `message` and `finish`. */
function openaiChoice(message: Record<string, unknown>, finish: string): Reply {
  return openaiCompletion({ role: 'assistant', refusal: null, ...message }, finish)
}

function gatewayFiltered(text: string): Reply {
  const usage = { inputTokens: { total: 30, noCache: 30 }, outputTokens: { total: 5, text: 5 } }
  return { kind: 'json', body: { content: [{ type: 'text', text }], finishReason: { unified: 'content-filter', raw: 'content_filter' }, usage, warnings: [] } }
}

interface Refusal {
  readonly name: string
  readonly provider: (server: LoopbackServer) => Provider
  readonly refusal: Reply
  readonly rawOutput: string
  readonly valid: Reply
}

const openaiProvider = (s: LoopbackServer) => openai({ client: new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'k', maxRetries: 0 }), model: 'gpt-test' })
const refusals: readonly Refusal[] = [
  {
    name: 'OpenAI finish_reason content_filter',
    provider: openaiProvider,
    refusal: openaiChoice({ content: partial }, 'content_filter'),
    rawOutput: partial,
    valid: openaiText(validRefundJson),
  },
  {
    name: 'OpenAI message.refusal',
    provider: openaiProvider,
    refusal: openaiChoice({ content: null, refusal: refusalText }, 'stop'),
    rawOutput: refusalText,
    valid: openaiText(validRefundJson),
  },
  {
    name: 'Anthropic stop_reason refusal',
    provider: (s) => anthropic({ client: new Anthropic({ baseURL: s.url, apiKey: 'k', maxRetries: 0 }), model: 'claude-test' }),
    refusal: anthropicText(refusalText, 'refusal'),
    rawOutput: refusalText,
    valid: anthropicText(validRefundJson),
  },
  {
    name: 'AI SDK finishReason content-filter',
    provider: (s) => aiSdk(createGateway({ baseURL: s.url, apiKey: 'k' })('openai/gpt-test')),
    refusal: gatewayFiltered(refusalText),
    rawOutput: refusalText,
    valid: gatewayText(validRefundJson),
  },
]

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const base = [{ role: 'user' as const, content: 'refund order #42 for $50' }]
const retryRefusals: ReliabilityRule = { when: (s) => s.errorKind === 'refusal', then: 'retry', kind: 'retry-refusal' }

describe.each(refusals)('a refusal by $name', (r) => {
  it('fails fast as kind refusal, without schema feedback, keeping the answer in the attempt log', async () => {
    server.script([r.refusal, r.valid])
    server.requests.length = 0
    const gate = createGate({ providers: r.provider(server), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const failed: number[] = []
    gate.on('validation_failed', (e) => failed.push(e.attempt))
    const error = await gate.run({ messages: base }).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'refusal' })
    expect((error as { reason: string }).reason).toContain('refused')
    const [attempt] = (error as { attempts: { errorKind: string; status: string; rawOutput: string | undefined; feedbackSent: string | undefined }[] }).attempts
    expect(attempt).toMatchObject({ errorKind: 'refusal', status: 'refusal', rawOutput: r.rawOutput, feedbackSent: undefined })
    expect(failed).toEqual([])
    expect(server.requests).toHaveLength(1)
  })

  it('is retried when a rule says so, with the same request and no feedback', async () => {
    server.script([r.refusal, r.valid])
    server.requests.length = 0
    const gate = createGate({ providers: r.provider(server), outputSchema: Refund, postDecide: [retryRefusals, ...strictOutputRules(3)] })
    const result = await gate.run({ messages: base })
    expect(result.value).toEqual(validRefund)
    expect(result.attempts.map((a) => a.errorKind)).toEqual(['refusal', 'ok'])
    expect(server.requests).toHaveLength(2)
    expect(JSON.stringify(server.requests[1]?.body)).toBe(JSON.stringify(server.requests[0]?.body))
  })
})

describe('a streamed refusal', () => {
  it('fails fast as kind refusal in buffer mode', async () => {
    server.script([openaiSse(partial, { finish: 'content_filter' }), openaiText(validRefundJson)])
    server.requests.length = 0
    const gate = createGate({ providers: openaiProvider(server), outputSchema: Refund, postDecide: strictOutputRules(3) })
    await expect(collect(gate.stream({ messages: base }, { mode: 'buffer' }))).rejects.toMatchObject({ kind: 'refusal' })
    expect(server.requests).toHaveLength(1)
  })
})
