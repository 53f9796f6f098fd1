import { Compile } from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import type { JsonSchema } from '../../src/model/request.ts'
import { simulated } from '../../src/providers/index.ts'
import { percentRefSchema, refundSchema } from './schemas.ts'
import { askFor, feedback, retryOf } from './simulated-helpers.ts'

const check = Compile(refundSchema as never)
const parse = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>

const AMOUNT = `- 'amount': expected number, got "USD 50"`
const DUE = `- 'due': expected ISO datetime (e.g. '2026-05-03T00:00:00'), got "tomorrow"`
const NOTE = `- 'note': unknown field — remove it`

describe('simulated retries', () => {
  it('answers validly when the feedback names every issue', async () => {
    const provider = simulated({ faults: ['number-as-string', 'extra-field'] })
    const request = askFor(refundSchema)
    const first = await provider.complete(request)
    const second = await provider.complete(retryOf(request, first.content, feedback(AMOUNT, NOTE)))
    expect(check.Check(parse(second.content))).toBe(true)
    expect(parse(second.content)['amount']).toBe(50)
  })

  it('fixes only the issue the feedback names', async () => {
    const provider = simulated({ faults: ['number-as-string', 'datetime-tomorrow'] })
    const request = askFor(refundSchema)
    const first = await provider.complete(request)
    const second = parse((await provider.complete(retryOf(request, first.content, feedback(DUE)))).content)
    expect(second['amount']).toBe('USD 50')
    expect(second['due']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  })

  it('adds a missing required property the feedback names', async () => {
    const provider = simulated({ faults: [] })
    const request = askFor(refundSchema)
    const previous = JSON.stringify({ orderId: '42', action: 'refund', due: '2026-01-01T00:00:00Z' })
    const fixed = parse((await provider.complete(retryOf(request, previous, feedback(`- 'amount': required field is missing — provide a value`)))).content)
    expect(fixed).toEqual({ orderId: '42', action: 'refund', due: '2026-01-01T00:00:00Z', amount: 50 })
  })

  it('fixes a nested path', async () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          minItems: 1,
          items: { type: 'object', properties: { title: { type: 'string' }, qty: { type: 'integer' } }, required: ['title', 'qty'] },
        },
      },
      required: ['items'],
    }
    const request = askFor(schema)
    const previous = JSON.stringify({ items: [{ title: 'ok', qty: 1 }, { qty: 'two' }] })
    const response = await simulated({ faults: [] }).complete(
      retryOf(request, previous, feedback(`- 'items[1].title': required field is missing — provide a value`, `- 'items[1].qty': expected integer, got string`)),
    )
    const value = parse(response.content)
    expect(Compile(schema as never).Check(value)).toBe(true)
    expect((value['items'] as unknown[])[0]).toEqual({ title: 'ok', qty: 1 })
  })

  it('replaces the whole value when the feedback names the root', async () => {
    const request = askFor(refundSchema)
    const response = await simulated({ faults: [] }).complete(retryOf(request, '"just a string"', feedback(`- '(root)': expected object, got string`)))
    expect(check.Check(parse(response.content))).toBe(true)
  })

  it('starts from JSON fenced in prose', async () => {
    const provider = simulated({ faults: ['fenced-in-prose', 'datetime-tomorrow'] })
    const request = askFor(refundSchema)
    const first = await provider.complete(request)
    const second = await provider.complete(retryOf(request, first.content, feedback(DUE)))
    expect(check.Check(parse(second.content))).toBe(true)
  })

  it('keeps the unnamed faults of a truncated first attempt after a parse-error feedback', async () => {
    const provider = simulated({ faults: ['truncated-json', 'datetime-tomorrow'] })
    const request = askFor(refundSchema)
    const first = await provider.complete(request)
    const parseFeedback = 'Your previous answer could not be parsed as JSON: Unexpected end of JSON input\nReply again with only a valid JSON value.'
    const second = await provider.complete(retryOf(request, first.content, parseFeedback))
    expect(second.stopReason).toBe('end')
    expect(parse(second.content)['due']).toBe('tomorrow')
    const third = await provider.complete(retryOf(request, second.content, feedback(DUE)))
    expect(check.Check(parse(third.content))).toBe(true)
  })

  it('fixes an answer the gate cut with the truncation marker', async () => {
    const provider = simulated({ faults: ['number-as-string'] })
    const request = askFor(refundSchema)
    const first = await provider.complete(request)
    const cut = `${first.content.slice(0, 20)}\n[…truncated for length…]`
    const second = await provider.complete(retryOf(request, cut, feedback(AMOUNT)))
    expect(check.Check(parse(second.content))).toBe(true)
  })

  it('repeats the previous answer verbatim with ignoreFeedback', async () => {
    const provider = simulated({ faults: ['number-as-string'], ignoreFeedback: true })
    const request = askFor(refundSchema)
    const first = await provider.complete(request)
    const second = await provider.complete(retryOf(request, first.content, feedback(AMOUNT)))
    expect(second.content).toBe(first.content)
  })

  it('repeats the full previous answer with ignoreFeedback when the tail holds a cut copy', async () => {
    const provider = simulated({ faults: ['truncated-json'], ignoreFeedback: true })
    const request = askFor(refundSchema)
    const first = await provider.complete(request)
    const second = await provider.complete(
      retryOf(request, `${first.content.slice(0, 10)}\n[…truncated for length…]`, 'Your previous answer could not be parsed as JSON: x'),
    )
    expect(second.content).toBe(first.content)
    expect(second.stopReason).toBe('max_tokens')
  })

  it('recognises a retry whose ephemeral flags were stripped', async () => {
    const provider = simulated({ faults: ['number-as-string'] })
    const request = askFor(refundSchema)
    const first = await provider.complete(request)
    const stripped = {
      ...request,
      messages: [...request.messages, { role: 'assistant' as const, content: first.content }, { role: 'user' as const, content: feedback(AMOUNT) }],
    }
    expect(check.Check(parse((await provider.complete(stripped)).content))).toBe(true)
  })

  it('answers like a first attempt when the ephemeral tail holds no previous answer', async () => {
    const provider = simulated({ seed: 5 })
    const request = askFor(refundSchema)
    const first = await provider.complete(request)
    const again = await provider.complete({
      ...request,
      messages: [...request.messages, { role: 'user', content: 'The provider failed; try again.', ephemeral: true }],
    })
    expect(again.content).toBe(first.content)
  })

  it('fixes a path under a $ref whose malformed percent escape it takes literally', async () => {
    const provider = simulated({ faults: [] })
    const request = askFor(percentRefSchema)
    const previous = JSON.stringify({ share: { percent: 'half' } })
    const fixed = parse((await provider.complete(retryOf(request, previous, feedback(`- 'share.percent': expected number, got "half"`)))).content)
    expect(fixed['share']).toEqual({ percent: expect.any(Number) })
  })
})
