import fc from 'fast-check'
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import { compileSchema, type FinalAnswerResult, validateFinalAnswer } from '../../src/validation/index.ts'
import { endsMidBlock } from '../../src/validation/json/ends-mid-block.ts'

const Anything = compileSchema({})

function verdict(text: string): FinalAnswerResult<unknown> {
  const result = validateFinalAnswer(text, Anything, { repair: true })
  if (result instanceof Promise) throw new Error('expected a synchronous verdict')
  return result
}
const parseError = (text: string) => {
  const result = verdict(text)
  return result.ok ? undefined : (result.failure.parseError ?? result.failure.message)
}
const call = (n: number) => `{"name": "f", "arguments": {"n": ${n}}}`
const block = (n: number) => `<tool_call>\n${call(n)}\n</tool_call>`

describe('endsMidBlock', () => {
  it('finds a <tool_call> block opened and never closed, whatever came before', () => {
    expect(endsMidBlock(`<tool_call>\n${call(1)}`)).toBe('tool_call')
    expect(endsMidBlock(`${block(1)}\n<tool_call>\n${call(2)}`)).toBe('tool_call')
    expect(endsMidBlock(`${block(1)}\n<tool_call>\n{"name": "f", "argu`)).toBe('tool_call')
    expect(endsMidBlock(`${block(1)}\n</tool_ca`)).toBe('tool_call')
  })

  it('finds an unclosed <think> block and a tag the answer closes elsewhere', () => {
    expect(endsMidBlock('<think>\nThe amount is {"amount": 5}')).toBe('think')
    expect(endsMidBlock('<answer>{"a": 1}</answer>\n<answer>{"a": 2}')).toBe('answer')
  })

  it('takes a dangling opener followed by prose or nothing for a slip, not a cut', () => {
    expect(endsMidBlock(`${block(1)}\n<tool_call>\nThe result is 42.`)).toBeUndefined()
    expect(endsMidBlock(`${block(1)}\n<tool_call>\n\`\`\``)).toBeUndefined()
    expect(endsMidBlock(`${block(1)}\n<tool_call>`)).toBeUndefined()
  })

  it('takes a block followed by a chat control token as ended by the model', () => {
    expect(endsMidBlock(`<tool_call>\n${call(1)}\n<|im_start|>\nDone.`)).toBeUndefined()
  })

  it('accepts formats without closing tags (granite: <function_call> {...})', () => {
    expect(endsMidBlock(`<function_call> ${call(1)}`)).toBeUndefined()
    expect(endsMidBlock(`<function_call> ${call(1)}\n<function_call> ${call(2)}`)).toBeUndefined()
  })

  it('answers at once for an answer without any tag', () => {
    expect(endsMidBlock(`${call(1)}\n${call(2)}`)).toBeUndefined()
  })
})

describe('validateFinalAnswer on a cut <tool_call> block', () => {
  it('refuses a block opened and never closed at the end, whatever the stop reason, naming the block', () => {
    expect(parseError(`<tool_call>\n${call(1)}`)).toMatch(/^the answer stops inside a <tool_call> block .*cut off/)
    expect(parseError(`${block(1)}\n<tool_call>\n${call(2)}`)).toMatch(/stops inside a <tool_call> block/)
    expect(parseError(`${block(1)}\n<tool_call>\n{"name": "f", "argu`)).toMatch(/cut off/)
  })

  it('says the block was cut, not that a value is incomplete, when a complete call sits in the unclosed block', () => {
    const text = `${block(1)}\n<tool_call>\n{'name': 'f', 'arguments': {'n': 1}}`
    expect(parseError(text)).toMatch(/^the answer stops inside a <tool_call> block/)
    expect(parseError(text)).not.toMatch(/ends before it is complete/)
  })

  it('accepts complete calls followed by a dangling opener with nothing call-like after it', () => {
    expect(verdict(`${block(1)}\n${block(2)}\n<tool_call>\nBy the way, these are two calls.`)).toMatchObject({
      ok: true,
      value: [JSON.parse(call(1)), JSON.parse(call(2))],
    })
  })

  it('never accepts a cut inside a closed-format block, and never a changed value, wherever the answer is cut', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.nat(), (count, seed) => {
        const text = Array.from({ length: count }, (_, i) => block(i)).join('\n')
        const whole = verdict(text)
        expect(whole.ok).toBe(true)
        const at = 1 + (seed % (text.length - 1))
        const cut = text.slice(0, at)
        const result = verdict(cut)
        const open = cut.lastIndexOf('<tool_call>')
        const insideBlock = open >= 0 && cut.indexOf('</tool_call>', open) < 0 && cut.indexOf('{', open) >= 0
        if (insideBlock) expect(result.ok).toBe(false)
        if (!result.ok || !whole.ok) return
        // Accepted: whole calls only, the first ones, unchanged.
        const value = result.value as unknown
        const all = (count === 1 ? [whole.value] : whole.value) as unknown[]
        const got = Array.isArray(value) && count > 1 && value.length > 0 && isDeepStrictEqual(value[0], all[0]) ? value : [value]
        expect(all.slice(0, got.length)).toEqual(got)
      }),
      { numRuns: 2000 },
    )
  })

  it('never accepts a cut of an accepted answer with a changed value, whatever format the calls are in', () => {
    const formats: readonly ((n: number) => string)[] = [
      (n) => Array.from({ length: n }, (_, i) => call(i)).join('\n'),
      (n) => Array.from({ length: n }, (_, i) => `<|im_start|>\n${call(i)}`).join('\n'),
      (n) => `Calls:\n${Array.from({ length: n }, (_, i) => `\`\`\`json\n${call(i)}\n\`\`\``).join('\n')}\nDone.`,
      (n) => `[${Array.from({ length: n }, (_, i) => `('f', {'n': ${i}, 's': 'a "b" c'})`).join(', ')}]`,
      (n) => `<think>\n{"draft": true}\n</think>\n${Array.from({ length: n }, (_, i) => block(i)).join('\n')}`,
    ]
    fc.assert(
      fc.property(fc.constantFrom(...formats), fc.integer({ min: 1, max: 3 }), fc.nat(), (format, count, seed) => {
        const text = format(count)
        const whole = verdict(text)
        expect(whole.ok).toBe(true)
        if (!whole.ok) return
        const cut = text.slice(0, 1 + (seed % (text.length - 1)))
        const result = verdict(cut)
        if (!result.ok) return
        // Accepted: the whole value, or whole calls only, the first ones, unchanged.
        const all = (Array.isArray(whole.value) ? whole.value : [whole.value]) as unknown[]
        const got = (Array.isArray(result.value) && Array.isArray(whole.value) ? result.value : [result.value]) as unknown[]
        expect(all.slice(0, got.length)).toEqual(got)
      }),
      { numRuns: 3000 },
    )
  })
})
