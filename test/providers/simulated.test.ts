import { Compile } from 'typebox/compile'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Message } from '../../src/model/message.ts'
import type { ModelRequest } from '../../src/model/request.ts'
import type { StreamChunk } from '../../src/model/stream-chunk.ts'
import type { ToolSpec } from '../../src/model/tool-call.ts'
import { simulated } from '../../src/providers/index.ts'
import { percentRefSchema, refundSchema } from './schemas.ts'
import { askFor } from './simulated-helpers.ts'

const lookupOrder: ToolSpec = {
  name: 'lookup_order',
  inputSchema: {
    type: 'object',
    properties: { orderId: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 5 } },
    required: ['orderId', 'limit'],
    additionalProperties: false,
  },
}
const sendEmail: ToolSpec = { name: 'send_email', inputSchema: { type: 'object', properties: { to: { type: 'string', format: 'email' } }, required: ['to'] } }

describe('simulated', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('answers plain text derived from the last user message without a schema', async () => {
    const question = `What is the refund policy for ${'very '.repeat(30)}old orders?`
    const response = await simulated().complete({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: question },
      ],
    })
    expect(response.content).toBe(`Simulated answer to: ${question.slice(0, 80)}`)
    expect(response.stopReason).toBe('end')
  })

  it('estimates usage from characters', async () => {
    const request: ModelRequest = { system: 'abcd', messages: [{ role: 'user', content: 'x'.repeat(9) }] }
    const response = await simulated().complete(request)
    expect(response.usage).toEqual({ inputTokens: 4, outputTokens: Math.ceil(response.content.length / 4) })
  })

  it('is named simulated by default and takes a name', () => {
    expect(simulated().name).toBe('simulated')
    expect(simulated({ name: 'demo' }).name).toBe('demo')
  })

  it('calls the first tool with valid arguments before any tool result', async () => {
    const request: ModelRequest = { ...askFor(refundSchema), tools: [lookupOrder, sendEmail] }
    const response = await simulated({ faults: [] }).complete(request)
    expect(response.stopReason).toBe('tool_use')
    expect(response.toolCalls).toHaveLength(1)
    const [call] = response.toolCalls
    expect(call).toMatchObject({ id: 'call_1', name: 'lookup_order', args: { orderId: '42' } })
    expect(Compile(lookupOrder.inputSchema as never).Check(call?.args)).toBe(true)
  })

  it('answers after a tool result', async () => {
    const base = askFor(refundSchema)
    const messages: Message[] = [
      ...base.messages,
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'lookup_order', args: { orderId: '42', limit: 1 } }] },
      { role: 'tool', content: '{"status":"delivered"}', toolCallId: 'call_1', toolName: 'lookup_order' },
    ]
    const response = await simulated({ faults: [] }).complete({ ...base, messages, tools: [lookupOrder] })
    expect(response.toolCalls).toEqual([])
    expect(Compile(refundSchema as never).Check(JSON.parse(response.content))).toBe(true)
  })

  it('calls the tool again with the named arguments fixed after an argument error', async () => {
    const base = askFor(refundSchema)
    const messages: Message[] = [
      ...base.messages,
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'lookup_order', args: { orderId: '42', limit: 'many' } }], ephemeral: true },
      {
        role: 'tool',
        content: 'The arguments are invalid:\n- \'limit\': expected integer, got "many"',
        toolCallId: 'call_1',
        toolName: 'lookup_order',
        isError: true,
        ephemeral: true,
      },
    ]
    const response = await simulated({ faults: [] }).complete({ ...base, messages, tools: [sendEmail, lookupOrder] })
    const [call] = response.toolCalls
    expect(call).toMatchObject({ id: 'call_2', name: 'lookup_order', args: { orderId: '42', limit: expect.any(Number) } })
    expect(Compile(lookupOrder.inputSchema as never).Check(call?.args)).toBe(true)
  })

  it('waits for the latency', async () => {
    vi.useFakeTimers()
    let settled = false
    const pending = simulated({ latencyMs: 500 })
      .complete({ messages: [{ role: 'user', content: 'q' }] })
      .then(() => (settled = true))
    await vi.advanceTimersByTimeAsync(499)
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await pending
    expect(settled).toBe(true)
  })

  it('rejects with the abort reason while waiting and clears its timer', async () => {
    vi.useFakeTimers()
    const controller = new AbortController()
    const reason = new Error('stop')
    const pending = simulated({ latencyMs: 60_000 }).complete({ messages: [{ role: 'user', content: 'q' }], signal: controller.signal })
    controller.abort(reason)
    await expect(pending).rejects.toBe(reason)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('rejects at once when the signal is already aborted', async () => {
    await expect(simulated().complete({ messages: [{ role: 'user', content: 'q' }], signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    })
  })

  it('follows a $ref whose malformed percent escape it takes literally', async () => {
    const response = await simulated({ faults: [] }).complete(askFor(percentRefSchema))
    expect(response.stopReason).toBe('end')
    // TypeBox itself throws a URIError on this $ref, so the shape is checked by hand.
    const { share } = JSON.parse(response.content) as { share: { percent: number } }
    expect(Object.keys(share)).toEqual(['percent'])
    expect(share.percent).toBeGreaterThanOrEqual(0)
    expect(share.percent).toBeLessThanOrEqual(100)
  })

  it('streams the same content in 16-character chunks, then done', async () => {
    const provider = simulated({ seed: 3 })
    const request = askFor(refundSchema)
    const chunks: StreamChunk[] = []
    for await (const chunk of provider.stream(request)) chunks.push(chunk)
    const done = chunks.at(-1)
    const texts = chunks.flatMap((c) => (c.type === 'text' ? [c.text] : []))
    expect(done?.type).toBe('done')
    expect(texts.slice(0, -1).every((t) => t.length === 16)).toBe(true)
    expect(texts.join('')).toBe((await provider.complete(request)).content)
  })
})
