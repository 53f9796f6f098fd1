import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileSchema, extractJson, type FinalAnswerResult, validateFinalAnswer } from '../../src/validation/index.ts'
import { withoutReasoning } from '../../src/validation/json/reasoning-blocks.ts'

const Anything = compileSchema({})
const Refund = compileSchema({ type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] })

function verdict(text: string, schema = Anything): FinalAnswerResult<unknown> {
  const result = validateFinalAnswer(text, schema, { repair: true })
  if (result instanceof Promise) throw new Error('expected a synchronous verdict')
  return result
}
const parseError = (text: string) => {
  const result = verdict(text)
  return result.ok ? undefined : (result.failure.parseError ?? result.failure.message)
}

describe('withoutReasoning', () => {
  it('blanks every reasoning block, tags included, keeping offsets and line breaks', () => {
    const text = '<think>\n{"amount": 5}?\n</think>\n{"amount": 6}'
    const blanked = withoutReasoning(text)
    expect(blanked).toHaveLength(text.length)
    expect(blanked.trim()).toBe('{"amount": 6}')
    expect(blanked.split('\n')).toHaveLength(text.split('\n').length)
    expect(withoutReasoning('<THINKING>x</THINKING>{}<reasoning>y</reasoning>').trim()).toBe('{}')
  })

  it('returns the text itself when it holds no reasoning block', () => {
    const text = '<tool_call>{"a": 1}</tool_call>'
    expect(withoutReasoning(text)).toBe(text)
  })

  it('blanks an unclosed block to the end', () => {
    expect(withoutReasoning('{"a": 1}<think>{"a": 2}').trim()).toBe('{"a": 1}')
  })

  it('keeps every character outside the blocks, whatever the text', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (before, inside, after) => {
        fc.pre(!/<\/?(?:think|thinking|reasoning)>/i.test(before + inside + after))
        const text = `${before}<think>${inside}</think>${after}`
        const blanked = withoutReasoning(text)
        expect(blanked).toHaveLength(text.length)
        expect(blanked.startsWith(before)).toBe(true)
        expect(blanked.endsWith(after)).toBe(true)
      }),
      { numRuns: 500 },
    )
  })
})

describe('extractJson on answers with reasoning', () => {
  it('never takes a draft value in a <think> block, only the answer after it', () => {
    const text = '<think>\nMaybe {"amount": 5}? No, the order says 6.\n</think>\n{"amount": 6}'
    expect(extractJson(text)).toMatchObject({ ok: true, value: { amount: 6 }, count: 1 })
    expect(verdict(text, Refund)).toMatchObject({ ok: true, value: { amount: 6 } })
  })

  it('skips <thinking> and <reasoning> blocks too', () => {
    expect(extractJson('<thinking>{"a": 1}</thinking>\n<reasoning>[1, 2]</reasoning>\n{"a": 2}')).toMatchObject({ ok: true, value: { a: 2 } })
  })

  it('says the answer must follow the reasoning when JSON sits only inside it', () => {
    expect(extractJson('<think>{"amount": 5}</think>\nI would refund five.')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/after the reasoning/),
    })
  })

  it('refuses an answer cut inside its reasoning', () => {
    expect(parseError('<think>\nThe amount is {"amount": 5')).toMatch(/stops inside a <think> block/)
  })
})

describe('extractJson on refusals with code', () => {
  it('takes no value from a code sample in a refusal', () => {
    const refusal = 'I\'m sorry, but I cannot make that request for you. You could run:\n```python\nrequests.post(url, json={"amount": 50})\n```'
    expect(extractJson(refusal)).toMatchObject({ ok: false, message: expect.stringMatching(/^the answer is a refusal/) })
    expect(verdict(refusal, Refund).ok).toBe(false)
    const inline = 'Unfortunately I cannot do this. Call `refund({"amount": 50})` yourself.'
    expect(extractJson(inline).ok).toBe(false)
    const assignment = 'I am unable to access the API.\npayload = {"amount": 50}\nresponse = send(payload)'
    expect(extractJson(assignment).ok).toBe(false)
  })

  it('still takes a value given outside code, even after an apology', () => {
    expect(extractJson('Sorry for the wait! Here it is: {"amount": 50}')).toMatchObject({ ok: true, value: { amount: 50 } })
    expect(extractJson('I\'m sorry for the delay.\n```json\n{"amount": 50}\n```')).toMatchObject({ ok: true, value: { amount: 50 } })
  })

  it('still takes a code sample outside a refusal (models write calls in python fences)', () => {
    expect(extractJson('Here is the call:\n```python\n{"name": "f", "arguments": {}}\n```')).toMatchObject({ ok: true })
  })
})
