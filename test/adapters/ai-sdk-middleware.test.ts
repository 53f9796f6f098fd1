import { createGateway, generateText, jsonSchema, Output, streamText, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultStuckLoopRule, isReliabilityFailFastError, strictOutputRules, type GateEvent, type GateEventMap } from '../../src/index.ts'
import { reliabilityMiddleware } from '../../src/integrations/ai-sdk-middleware/index.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { generated, streamed } from './support/ai-sdk-mock.ts'
import { gatewayError, gatewayText } from './support/ai-sdk-wire.ts'
import { waitingModel } from './support/waiting-model.ts'
import { startLoopback, type LoopbackServer } from './support/loopback-server.ts'

const invalid = '{"orderId": "42", "action": "refund", "amount": "USD 50"}'
const invalidWithNote = '{"orderId": "42", "action": "refund", "amount": "USD 50", "note": "never read"}'
const refundSchema = JSON.parse(JSON.stringify(Refund)) as Record<string, unknown>

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

describe('reliabilityMiddleware', () => {
  it('retries inside generateText over the gateway HTTP path, validating against Output.object', async () => {
    server.script([gatewayText(invalid), gatewayText(validRefundJson)])
    server.requests.length = 0
    const middleware = reliabilityMiddleware({ postDecide: [defaultStuckLoopRule, ...strictOutputRules(3)] })
    const events: GateEvent['type'][] = []
    middleware.events$.subscribe((e) => events.push(e.type))
    const model = wrapLanguageModel({ model: createGateway({ baseURL: server.url, apiKey: 'k' })('openai/gpt-test'), middleware })
    const result = await generateText({ model, output: Output.object({ schema: jsonSchema(refundSchema) }), prompt: 'refund order #42 for $50', maxRetries: 0 })

    expect(result.output).toEqual(validRefund)
    expect(events).toEqual(expect.arrayContaining(['validation_failed', 'retry', 'recovered']))
    expect(server.requests).toHaveLength(2)
    const [first, second] = server.requests.map((r) => r.body)
    expect(second.prompt.slice(0, first.prompt.length)).toEqual(first.prompt)
    expect(second.prompt.at(-2)).toEqual({ role: 'assistant', content: [{ type: 'text', text: invalid }] })
    expect(second.prompt.at(-1).content[0].text).toContain(`- 'amount': expected number, got "USD 50"`)
    expect(JSON.stringify(second)).not.toContain('ephemeral')
    // Both attempts are billed.
    expect(result.usage.outputTokens).toBe(20)
  })

  it('retries with the mock language model and an explicit output schema', async () => {
    const mock = new MockLanguageModelV4({ doGenerate: [generated(invalid), generated(validRefundJson)] })
    const middleware = reliabilityMiddleware({ outputSchema: Refund, postDecide: strictOutputRules(3) })
    const failed: string[] = []
    middleware.on('validation_failed', (e) => failed.push(e.stage))
    const result = await generateText({ model: wrapLanguageModel({ model: mock, middleware }), prompt: 'refund #42' })
    expect(JSON.parse(result.text)).toEqual(validRefund)
    expect(failed).toEqual(['schema-validate'])
    expect(mock.doGenerateCalls).toHaveLength(2)
    expect(mock.doGenerateCalls[0]?.prompt).toHaveLength(1)
    expect(mock.doGenerateCalls[1]?.prompt).toHaveLength(3)
  })

  it('detects a stuck loop and fails instead of paying for more retries', async () => {
    const mock = new MockLanguageModelV4({ doGenerate: [generated(invalid), generated(invalid), generated(invalid), generated(validRefundJson)] })
    const middleware = reliabilityMiddleware({ outputSchema: Refund, postDecide: [defaultStuckLoopRule, ...strictOutputRules(5)] })
    const error = await generateText({ model: wrapLanguageModel({ model: mock, middleware }), prompt: 'refund #42', maxRetries: 0 }).catch((e: unknown) => e)
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).toContain('schema-stuck-loop')
    expect(mock.doGenerateCalls).toHaveLength(2)
  })

  it('buffers streamText so the consumer reads only the validated answer', async () => {
    const mock = new MockLanguageModelV4({ doStream: [streamed(invalid), streamed(validRefundJson)] })
    const middleware = reliabilityMiddleware({ outputSchema: Refund, postDecide: strictOutputRules(3) })
    const retries: number[] = []
    middleware.on('retry', (e) => retries.push(e.attempt))
    const result = streamText({ model: wrapLanguageModel({ model: mock, middleware }), prompt: 'refund #42' })
    let text = ''
    for await (const delta of result.textStream) text += delta
    expect(text).toBe(validRefundJson)
    expect(retries).toEqual([1])
    expect(mock.doStreamCalls).toHaveLength(2)
    expect((await result.usage).outputTokens).toBe(10)
  })
})

describe('reliabilityMiddleware circuit breaker', () => {
  it('keeps one breaker across calls: failing calls open it and the next call fails fast without reaching the model', async () => {
    server.script([gatewayError(503, 'server_error'), gatewayError(503, 'server_error'), gatewayText(validRefundJson)])
    server.requests.length = 0
    const middleware = reliabilityMiddleware({ breaker: { failureThreshold: 2, cooldownMs: 60_000 } })
    const transitions: GateEventMap['breaker_state'][] = []
    middleware.on('breaker_state', (e) => transitions.push(e))
    const model = wrapLanguageModel({ model: createGateway({ baseURL: server.url, apiKey: 'k' })('openai/gpt-test'), middleware })
    const call = () => generateText({ model, prompt: 'refund #42', maxRetries: 0 }).catch((e: unknown) => e)
    await call()
    await call()
    const error = await call()
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'circuit-open' })
    expect(transitions.map((t) => [t.from, t.to])).toEqual([['closed', 'open']])
    expect(server.requests).toHaveLength(2)
  })
})

describe('reliabilityMiddleware in streamText', () => {
  it('in passthrough, surfaces mid-stream-not-retryable instead of retrying delivered text', async () => {
    const mock = new MockLanguageModelV4({ doStream: [streamed(invalidWithNote), streamed(validRefundJson)] })
    const middleware = reliabilityMiddleware({ outputSchema: Refund, postDecide: strictOutputRules(3), streamMode: 'passthrough' })
    const errors: unknown[] = []
    const result = streamText({ model: wrapLanguageModel({ model: mock, middleware }), prompt: 'refund #42', onError: ({ error }) => void errors.push(error) })
    let text = ''
    for await (const delta of result.textStream) text += delta
    expect(text).toBe(invalidWithNote)
    expect(errors).toEqual([expect.objectContaining({ kind: 'mid-stream-not-retryable' })])
    expect(mock.doStreamCalls).toHaveLength(1)
  })

  it('appends the feedback to the original prompt of the second stream call, without the ephemeral flag', async () => {
    const mock = new MockLanguageModelV4({ doStream: [streamed(invalidWithNote), streamed(validRefundJson)] })
    const middleware = reliabilityMiddleware({ outputSchema: Refund, postDecide: strictOutputRules(3) })
    const result = streamText({ model: wrapLanguageModel({ model: mock, middleware }), system: 'Output JSON.', prompt: 'refund #42' })
    await result.consumeStream()
    const [first, second] = mock.doStreamCalls
    expect(second?.prompt.slice(0, first?.prompt.length)).toEqual(first?.prompt)
    expect(second?.prompt.slice(first?.prompt.length ?? 0).map((m) => m.role)).toEqual(['assistant', 'user'])
    expect(JSON.stringify(second?.prompt)).toContain(`- 'amount': expected number, got \\"USD 50\\"`)
    expect(JSON.stringify(second?.prompt)).not.toContain('ephemeral')
  })
})

describe('reliabilityMiddleware streams the consumer leaves', () => {
  it('aborts the model call when the consumer cancels its stream mid-answer', async () => {
    const model = waitingModel(['{"orderId": ', '"42"'])
    const middleware = reliabilityMiddleware({ streamMode: 'passthrough' })
    const wrapped = wrapLanguageModel({ model: new MockLanguageModelV4({ doStream: model.doStream }), middleware })
    const { stream } = await wrapped.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'refund' }] }] } as never)
    const reader = stream.getReader()
    for (let part = await reader.read(); !part.done && part.value.type !== 'text-delta'; part = await reader.read());
    await reader.cancel()
    expect(await model.outcome()).toBe('model call aborted')
  })
})
