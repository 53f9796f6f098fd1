import { createGateway, generateText, isStepCount, jsonSchema, NoObjectGeneratedError, Output, streamText, tool, wrapLanguageModel } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultStuckLoopRule, isReliabilityFailFastError, strictOutputRules, type GateEventMap } from '../../src/index.ts'
import { isNoObjectGenerated, reliabilityMiddleware, type ReliabilityMiddleware } from '../../src/integrations/ai-sdk.ts'
import { Refund } from '../support/schemas.ts'
import { gatewayError, gatewayText, gatewayToolCall } from './support/ai-sdk-wire.ts'
import { startLoopback, type LoopbackServer, type Reply } from './support/loopback-server.ts'

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const executed: unknown[] = []
const lookup = tool({
  description: 'find an order',
  inputSchema: jsonSchema<{ orderId: string }>({
    type: 'object',
    properties: { orderId: { type: 'string' } },
    required: ['orderId'],
    additionalProperties: false,
  }),
  execute: async (input) => {
    executed.push(input)
    return { status: 'delivered' }
  },
})
const getMessage = tool({
  description: 'read one message',
  inputSchema: jsonSchema<{ message_id: string }>({ type: 'object', properties: { message_id: { type: 'string' } }, required: ['message_id'] }),
  execute: async (input) => {
    executed.push(input)
    return 'hello'
  },
})

interface Seen {
  readonly failed: GateEventMap['validation_failed'][]
  readonly outcomes: string[]
}

function watch(middleware: ReliabilityMiddleware): Seen {
  const seen: Seen = { failed: [], outcomes: [] }
  middleware.on('validation_failed', (e) => seen.failed.push(e))
  middleware.on('tool_retry_outcome', (e) => seen.outcomes.push(`${e.tool}:${e.outcome}:${e.retryCount}`))
  return seen
}

const gatewayModel = () => createGateway({ baseURL: server.url, apiKey: 'k' })('openai/gpt-test')
const call = (input: string, id = 'c1', name = 'lookup'): Reply => gatewayToolCall(id, name, input)

async function runTools(replies: readonly Reply[], middleware = reliabilityMiddleware({ postDecide: strictOutputRules(3) })) {
  executed.length = 0
  server.script(replies)
  server.requests.length = 0
  const seen = watch(middleware)
  const run = generateText({
    model: wrapLanguageModel({ model: gatewayModel(), middleware }),
    tools: { lookup, getMessage },
    stopWhen: isStepCount(3),
    prompt: 'where is order 42?',
    maxRetries: 0,
  })
  return {
    seen,
    result: await run.then(
      (r) => r,
      (e: unknown) => e,
    ),
  }
}

describe('reliabilityMiddleware with tools', () => {
  it('retries invalid tool arguments with feedback before the AI SDK executes the call', async () => {
    const { seen, result } = await runTools([call('{"orderId": 42}'), call('{"orderId": "42"}', 'c2'), gatewayText('It was delivered.')])
    expect((result as { text: string }).text).toBe('It was delivered.')
    expect(executed).toEqual([{ orderId: '42' }])
    expect(seen.failed.map((f) => [f.stage, f.attempt])).toEqual([['tool-args', 1]])
    expect(seen.outcomes).toEqual(['lookup:success:1'])
    expect(server.requests).toHaveLength(3)
    const retry = server.requests[1]?.body.prompt
    expect(retry.at(-2)).toEqual({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { orderId: 42 } }] })
    expect(retry.at(-1).content[0].output.type).toBe('error-text')
    expect(retry.at(-1).content[0].output.value).toContain(`'orderId': expected string, got number`)
    // The AI SDK saw the call under its first id, with the final arguments.
    const next = server.requests[2]?.body.prompt
    expect(next.at(-2).content[0]).toMatchObject({ type: 'tool-call', toolCallId: 'c1', input: { orderId: '42' } })
    expect((result as { usage: { outputTokens: number } }).usage.outputTokens).toBe(30)
  })

  it('gives up after the feedback budget with an error the AI SDK recognises, never executing the call', async () => {
    const { seen, result } = await runTools([call('{"orderId": 1}'), call('{"orderId": 2}', 'c2'), call('{"orderId": 3}', 'c3'), gatewayText('never')])
    expect(isReliabilityFailFastError(result)).toBe(true)
    expect(NoObjectGeneratedError.isInstance(result)).toBe(true)
    expect(isNoObjectGenerated(result)).toBe(true)
    expect(result).toMatchObject({ kind: 'tool-args-invalid', finishReason: 'tool-calls' })
    expect(executed).toEqual([])
    expect(seen.failed.map((f) => f.attempt)).toEqual([1, 2, 3])
    expect(seen.outcomes).toEqual(['lookup:exhausted:2'])
    expect(server.requests).toHaveLength(3)
  })

  it('honours maxToolRetries', async () => {
    const { seen, result } = await runTools([call('{"orderId": 1}'), call('{"orderId": "1"}', 'c2')], reliabilityMiddleware({ maxToolRetries: 0 }))
    expect(result).toMatchObject({ kind: 'tool-args-invalid' })
    expect(seen.outcomes).toEqual(['lookup:exhausted:0'])
    expect(server.requests).toHaveLength(1)
  })

  it('lets a prose retry stand as the answer (llm_gave_up), without re-asking or executing', async () => {
    const { seen, result } = await runTools([call('{"orderId": 1}'), gatewayText('I cannot look it up.'), gatewayText('never read')])
    expect((result as { text: string }).text).toBe('I cannot look it up.')
    expect(seen.outcomes).toEqual(['lookup:llm_gave_up:0'])
    expect(server.requests).toHaveLength(2)
    expect(server.requests[1]?.body.toolChoice).toEqual({ type: 'auto' })
    expect(executed).toEqual([])
  })

  it('with forcedToolReask and toolGiveUpStops, re-asks a prose retry once with toolChoice pinned to the tool on the wire, then gives up as tool-call-abandoned', async () => {
    const middleware = reliabilityMiddleware({ postDecide: strictOutputRules(3), forcedToolReask: true, toolGiveUpStops: true })
    const { seen, result } = await runTools([call('{"orderId": 1}'), gatewayText('I cannot look it up.'), gatewayText('Still no.')], middleware)
    expect(result).toMatchObject({ kind: 'tool-call-abandoned' })
    expect(isNoObjectGenerated(result)).toBe(true)
    expect(seen.outcomes).toEqual(['lookup:llm_gave_up:0'])
    expect(server.requests).toHaveLength(3)
    expect(server.requests[1]?.body.toolChoice).toEqual({ type: 'auto' })
    expect(server.requests[2]?.body.toolChoice).toEqual({ type: 'tool', toolName: 'lookup' })
    expect(server.requests[2]?.body.prompt.at(-1).content[0].output.type).toBe('error-text')
    expect(executed).toEqual([])
  })

  it('with forcedToolReask alone, lets prose to the pinned re-ask stand as the answer', async () => {
    const middleware = reliabilityMiddleware({ forcedToolReask: true })
    const { seen, result } = await runTools(
      [call('{"orderId": 1}'), gatewayText('I cannot.'), gatewayText('Still cannot.'), gatewayText('never read')],
      middleware,
    )
    expect((result as { text: string }).text).toBe('Still cannot.')
    expect(seen.outcomes).toEqual(['lookup:llm_gave_up:0'])
    expect(server.requests[2]?.body.toolChoice).toEqual({ type: 'tool', toolName: 'lookup' })
    expect(executed).toEqual([])
  })

  it('with forcedToolReask, takes the call the forced re-ask makes, and the AI SDK runs it', async () => {
    const middleware = reliabilityMiddleware({ postDecide: strictOutputRules(3), forcedToolReask: true })
    const { seen, result } = await runTools([call('{"orderId": 1}'), gatewayText('I cannot.'), call('{"orderId": "1"}', 'c3'), gatewayText('done')], middleware)
    expect((result as { text: string }).text).toBe('done')
    expect(seen.outcomes).toEqual(['lookup:success:1'])
    expect(executed).toEqual([{ orderId: '1' }])
  })

  it('records a redundant retry that repeats the arguments of the attempt it retried, and not one that repeats an older attempt', async () => {
    const middleware = reliabilityMiddleware({ postDecide: strictOutputRules(3), maxToolRetries: 3 })
    const replies = [
      call('{"orderId": 1}'),
      call('{"orderId": true}', 'c2'),
      call('{ "orderId" : true }', 'c3'),
      call('{"orderId": "1"}', 'c4'),
      gatewayText('done'),
    ]
    const { seen } = await runTools(replies, middleware)
    expect(seen.outcomes).toEqual(['lookup:redundant:2', 'lookup:success:3'])
    expect(executed).toEqual([{ orderId: '1' }])
  })

  it('keeps retrying a repeat of the rejected arguments of the attempt before it (redundant), within the budget', async () => {
    const { seen, result } = await runTools([call('{"orderId": 1}'), call('{ "orderId" : 1 }', 'c2'), call('{"orderId": "1"}', 'c3'), gatewayText('done')])
    expect((result as { text: string }).text).toBe('done')
    expect(seen.outcomes).toEqual(['lookup:redundant:1', 'lookup:success:2'])
    expect(executed).toEqual([{ orderId: '1' }])
  })

  it('with toolGiveUpStops, gives up as schema-stuck-loop when a retry repeats the rejected arguments of the attempt before it', async () => {
    const middleware = reliabilityMiddleware({ postDecide: strictOutputRules(3), toolGiveUpStops: true })
    const { seen, result } = await runTools(
      [call('{"orderId": 1}'), call('{ "orderId" : 1 }', 'c2'), call('{"orderId": "1"}', 'c3'), gatewayText('done')],
      middleware,
    )
    expect(result).toMatchObject({ kind: 'schema-stuck-loop' })
    expect(seen.outcomes).toEqual(['lookup:redundant:1', 'lookup:exhausted:1'])
    expect(server.requests).toHaveLength(2)
    expect(executed).toEqual([])
  })

  it('blocks a fabricated slug-shaped ID with the ID-shape guard, without retrying or executing', async () => {
    const { seen, result } = await runTools([call('{"message_id": "msg-invoice-1"}', 'c1', 'getMessage'), gatewayText('never')])
    expect(result).toMatchObject({ kind: 'tool-args-invalid' })
    expect((result as Error).message).toContain('idShapeGuard')
    // As in the seed, a fabricated ID in the first call is refused before any retry loop: no outcome.
    expect(seen.outcomes).toEqual([])
    expect(executed).toEqual([])
    expect(server.requests).toHaveLength(1)
  })

  it('reports a guard rejection as a validation failure of the tool arguments', async () => {
    const { seen } = await runTools([call('{"message_id": "msg-invoice-1"}', 'c1', 'getMessage'), gatewayText('never')])
    expect(seen.failed.map((f) => [f.stage, f.attempt, f.cumulativeRetries])).toEqual([['tool-args', 1, 1]])
    expect(seen.failed[0]?.message).toContain('idShapeGuard')
  })

  it('reports fabricated_id_on_retry when the fixed call invents an ID', async () => {
    const { seen } = await runTools([call('{"message_id": 7}', 'c1', 'getMessage'), call('{"message_id": "msg-invoice-1"}', 'c2', 'getMessage')])
    expect(seen.outcomes).toEqual(['getMessage:fabricated_id_on_retry:1'])
    expect(executed).toEqual([])
  })

  it('passes valid calls through untouched, with a no_retry outcome', async () => {
    const { seen, result } = await runTools([call('{"orderId": "42"}'), gatewayText('It was delivered.')])
    expect((result as { text: string }).text).toBe('It was delivered.')
    expect(seen.outcomes).toEqual(['lookup:no_retry:0'])
    expect(seen.failed).toEqual([])
  })

  it('settles streamed tool calls the same way', async () => {
    executed.length = 0
    server.script([call('{"orderId": 42}'), call('{"orderId": "42"}', 'c2'), gatewayText('It was delivered.')])
    server.requests.length = 0
    const middleware = reliabilityMiddleware()
    const seen = watch(middleware)
    const result = streamText({
      model: wrapLanguageModel({ model: streamingFromGenerate(gatewayModel()), middleware }),
      tools: { lookup },
      stopWhen: isStepCount(3),
      prompt: 'where is order 42?',
      maxRetries: 0,
    })
    expect(await result.text).toBe('It was delivered.')
    expect(executed).toEqual([{ orderId: '42' }])
    expect(seen.outcomes).toEqual(['lookup:success:1'])
  })

  it('lets a prose retry of streamed tool calls stand as the streamed answer (llm_gave_up)', async () => {
    executed.length = 0
    server.script([call('{"orderId": 42}'), gatewayText('I cannot look that up.'), gatewayText('never read')])
    server.requests.length = 0
    const middleware = reliabilityMiddleware()
    const seen = watch(middleware)
    const result = streamText({
      model: wrapLanguageModel({ model: streamingFromGenerate(gatewayModel()), middleware }),
      tools: { lookup },
      stopWhen: isStepCount(3),
      prompt: 'where is order 42?',
      maxRetries: 0,
    })
    expect(await result.text).toBe('I cannot look that up.')
    expect(executed).toEqual([])
    expect(seen.outcomes).toEqual(['lookup:llm_gave_up:0'])
    expect(server.requests).toHaveLength(2)
  })

  it('gives up on streamed tool calls with the typed error the AI SDK recognises', async () => {
    executed.length = 0
    server.script([call('{"orderId": 1}'), call('{"orderId": 2}', 'c2'), call('{"orderId": 3}', 'c3'), gatewayText('never')])
    const middleware = reliabilityMiddleware()
    const seen = watch(middleware)
    const errors: unknown[] = []
    const result = streamText({
      model: wrapLanguageModel({ model: streamingFromGenerate(gatewayModel()), middleware }),
      tools: { lookup },
      stopWhen: isStepCount(3),
      prompt: 'where is order 42?',
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    })
    await result.consumeStream({ onError: (error) => void errors.push(error) })
    expect(errors).toHaveLength(1)
    expect(isReliabilityFailFastError(errors[0])).toBe(true)
    expect(isNoObjectGenerated(errors[0])).toBe(true)
    expect(errors[0]).toMatchObject({ kind: 'tool-args-invalid', finishReason: 'tool-calls' })
    expect(seen.outcomes).toEqual(['lookup:exhausted:2'])
    expect(executed).toEqual([])
  })
})

describe('reliabilityMiddleware tool-argument feedback', () => {
  it('keeps the tail of every tool-argument retry within maxFeedbackChars, whatever the model sends', async () => {
    const maxFeedbackChars = 600
    const huge = (i: number) =>
      JSON.stringify({ orderId: i, [`k${'x'.repeat(5_000)}`]: 'y'.repeat(20_000), notes: Array.from({ length: 500 }, (_, j) => `n${j}`) })
    const replies = Array.from({ length: 6 }, (_, i) => call(huge(i), `c${i}`))
    const { seen, result } = await runTools(replies, reliabilityMiddleware({ maxToolRetries: 5, maxFeedbackChars }))
    expect(result).toMatchObject({ kind: 'tool-args-invalid' })
    expect(seen.outcomes).toEqual(['lookup:exhausted:5'])
    const first = server.requests[0]?.body.prompt
    const retries = server.requests.slice(1)
    expect(retries).toHaveLength(5)
    for (const request of retries) {
      const tail = request.body.prompt.slice(first.length)
      expect(tail.map((m: { role: string }) => m.role)).toEqual(['assistant', 'tool'])
      const echo = JSON.stringify(tail[0].content[0].input)
      const feedback: string = tail[1].content[0].output.value
      expect(echo.length + feedback.length).toBeLessThanOrEqual(maxFeedbackChars)
    }
  })
})

describe('reliabilityMiddleware give-up on final answers', () => {
  const invalid = '{"orderId": "42", "action": "refund", "amount": "USD 50"}'

  it('is recognisable as NoObjectGeneratedError, with the last text', async () => {
    server.script([gatewayText(invalid)])
    const middleware = reliabilityMiddleware({ outputSchema: Refund, postDecide: [defaultStuckLoopRule, ...strictOutputRules(5)] })
    const error = await generateText({
      model: wrapLanguageModel({ model: gatewayModel(), middleware }),
      output: Output.object({ schema: jsonSchema(JSON.parse(JSON.stringify(Refund))) }),
      prompt: 'refund #42',
      maxRetries: 0,
    }).catch((e: unknown) => e)
    expect(NoObjectGeneratedError.isInstance(error)).toBe(true)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(error).toMatchObject({ kind: 'schema-stuck-loop', text: invalid, finishReason: 'stop' })
  })

  it('leaves a provider failure without any answer as it is', async () => {
    server.script([gatewayError(400, 'invalid_request_error')])
    const middleware = reliabilityMiddleware({ outputSchema: Refund, postDecide: strictOutputRules(3) })
    const error = await generateText({ model: wrapLanguageModel({ model: gatewayModel(), middleware }), prompt: 'refund #42', maxRetries: 0 }).catch(
      (e: unknown) => e,
    )
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(NoObjectGeneratedError.isInstance(error)).toBe(false)
    expect(isNoObjectGenerated(error)).toBe(false)
  })

  it('recognises the AI SDK own error too', () => {
    expect(
      isNoObjectGenerated(
        new NoObjectGeneratedError({ response: { id: 'r', timestamp: new Date(0), modelId: 'm' }, usage: undefined as never, finishReason: 'stop' }),
      ),
    ).toBe(true)
    expect(isNoObjectGenerated(new Error('no'))).toBe(false)
  })
})

/** A model that streams each doGenerate answer as stream parts (tool calls and text). */
function streamingFromGenerate(model: ReturnType<typeof gatewayModel>): typeof model {
  return new Proxy(model, {
    get(target, prop, receiver) {
      if (prop !== 'doStream') return Reflect.get(target, prop, receiver)
      return async (options: Parameters<typeof model.doStream>[0]) => {
        const result = await target.doGenerate(options)
        const parts: unknown[] = [{ type: 'stream-start', warnings: [] }]
        for (const p of result.content) {
          if (p.type === 'text') parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: p.text }, { type: 'text-end', id: 't' })
          else parts.push(p)
        }
        parts.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage })
        return {
          stream: new ReadableStream({
            start: (c) => {
              for (const p of parts) c.enqueue(p)
              c.close()
            },
          }),
        }
      }
    },
  })
}
