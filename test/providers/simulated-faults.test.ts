import { Compile } from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import type { JsonSchema } from '../../src/model/request.ts'
import { simulated } from '../../src/providers/index.ts'
import { refundSchema } from './schemas.ts'
import { askFor } from './simulated-helpers.ts'

const check = Compile(refundSchema as never)
const parse = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>

describe('simulated faults', () => {
  it('answers validly when faults is empty', async () => {
    const response = await simulated({ faults: [] }).complete(askFor(refundSchema))
    expect(check.Check(parse(response.content))).toBe(true)
    expect(response.stopReason).toBe('end')
  })

  it('takes the amount and the order id from the prompt', async () => {
    const response = await simulated({ faults: [] }).complete(askFor(refundSchema))
    expect(parse(response.content)).toMatchObject({ amount: 50, orderId: '42' })
  })

  it('writes a number as a currency string for number-as-string', async () => {
    const response = await simulated({ faults: ['number-as-string'] }).complete(askFor(refundSchema))
    expect(parse(response.content)['amount']).toBe('USD 50')
  })

  it('drops one required property for missing-required', async () => {
    const value = parse((await simulated({ faults: ['missing-required'] }).complete(askFor(refundSchema))).content)
    expect(Object.keys(value)).toHaveLength(3)
    expect(check.Check(value)).toBe(false)
  })

  it('adds an unknown note for extra-field', async () => {
    const value = parse((await simulated({ faults: ['extra-field'] }).complete(askFor(refundSchema))).content)
    expect(value['note']).toEqual(expect.any(String))
    const { note: _note, ...rest } = value
    expect(check.Check(rest)).toBe(true)
  })

  it('makes another mistake for extra-field when additional properties are allowed', async () => {
    const open: JsonSchema = { ...refundSchema, additionalProperties: true }
    const value = parse((await simulated({ faults: ['extra-field'] }).complete(askFor(open))).content)
    expect(value).not.toHaveProperty('note')
    expect(Compile(open as never).Check(value)).toBe(false)
  })

  it('wraps valid JSON in prose and a fence for fenced-in-prose', async () => {
    const { content } = await simulated({ faults: ['fenced-in-prose'] }).complete(askFor(refundSchema))
    const fenced = /```json\n([\s\S]*?)\n```/.exec(content)
    expect(content.startsWith('```')).toBe(false)
    expect(() => JSON.parse(content)).toThrow()
    expect(check.Check(parse(fenced?.[1] ?? ''))).toBe(true)
  })

  it('writes tomorrow in a date-time property for datetime-tomorrow', async () => {
    const value = parse((await simulated({ faults: ['datetime-tomorrow'] }).complete(askFor(refundSchema))).content)
    expect(value['due']).toBe('tomorrow')
  })

  it('cuts the JSON in the middle with stop reason max_tokens for truncated-json', async () => {
    const valid = await simulated({ faults: [] }).complete(askFor(refundSchema))
    const cut = await simulated({ faults: ['truncated-json'] }).complete(askFor(refundSchema))
    expect(cut.stopReason).toBe('max_tokens')
    expect(() => JSON.parse(cut.content)).toThrow()
    expect(valid.content.startsWith(cut.content)).toBe(true)
    expect(cut.content.length).toBeLessThan(valid.content.length)
  })

  it('combines faults at different properties', async () => {
    const value = parse((await simulated({ faults: ['number-as-string', 'datetime-tomorrow', 'extra-field'] }).complete(askFor(refundSchema))).content)
    expect(value).toMatchObject({ amount: 'USD 50', due: 'tomorrow', note: expect.any(String) })
  })

  it('always changes a first attempt with random faults', async () => {
    for (let seed = 0; seed < 40; seed++) {
      const request = askFor(refundSchema, `Refund order #${seed} please`)
      const faulty = await simulated({ seed }).complete(request)
      const valid = await simulated({ seed, faults: [] }).complete(request)
      expect(faulty.content).not.toBe(valid.content)
    }
  })

  it('varies the random faults with the seed', async () => {
    const shapes = new Set<string>()
    for (let seed = 0; seed < 40; seed++) {
      const { content, stopReason } = await simulated({ seed }).complete(askFor(refundSchema))
      shapes.add(`${stopReason}:${content.includes('```')}:${content.includes('USD')}:${content.includes('tomorrow')}:${content.includes('note')}`)
    }
    expect(shapes.size).toBeGreaterThanOrEqual(4)
  })

  it('gives the same answer for the same seed and request', async () => {
    const a = await simulated({ seed: 9 }).complete(askFor(refundSchema))
    const b = await simulated({ seed: 9 }).complete(askFor(refundSchema))
    expect(a).toEqual(b)
  })
})
