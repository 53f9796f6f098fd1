import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { compileSchema, validateFinalAnswer } from '../../src/validation/index.ts'
import { detectRepairs, findTaggedBlocks, repairFinalAnswer, repairJson } from '../../src/validation/repair/index.ts'

const Answer = compileSchema(
  Type.Object({ name: Type.String(), ok: Type.Boolean(), note: Type.Union([Type.String(), Type.Null()]) }, { additionalProperties: false }),
)
const Calls = compileSchema(Type.Array(Type.Object({ name: Type.String(), arguments: Type.Record(Type.String(), Type.Unknown()) })))
const Tags = compileSchema(Type.Array(Type.String()))

describe('repairJson', () => {
  it('repairs Python literals, single quotes and trailing commas, and names each', () => {
    const result = repairJson("{'name': 'a', 'ok': True, 'note': None,}")
    expect(result).toEqual({
      ok: true,
      value: { name: 'a', ok: true, note: null },
      repairs: expect.arrayContaining(['single-quotes', 'python-literals', 'trailing-comma']),
    })
  })

  it('reads typographic quotes around keys and strings as quotes, an apostrophe or a straight quote inside them as text', () => {
    expect(repairJson('{“name”: “He said "hi", it’s fine”, “ok”: true, “note”: null}')).toEqual({
      ok: true,
      value: { name: 'He said "hi", it’s fine', ok: true, note: null },
      repairs: ['typographic-quotes', 'inner-quotes'],
    })
    expect(repairJson('[‘a’, ‘b’,]')).toEqual({ ok: true, value: ['a', 'b'], repairs: expect.arrayContaining(['typographic-quotes', 'trailing-comma']) })
    // Inside straight quotes a typographic one is text, and nothing is repaired.
    expect(repairJson('{"a": "Rounded “ quote"}')).toEqual({ ok: true, value: { a: 'Rounded “ quote' }, repairs: [] })
  })

  it('reads any object written with typographic quotes as the object written with JSON quotes', () => {
    const text = fc.string({ maxLength: 12 }).filter((t) => !t.includes('\u201d'))
    fc.assert(
      fc.property(fc.dictionary(text, text, { minKeys: 1, maxKeys: 4 }), (value) => {
        const inner = (t: string): string => JSON.stringify(t).slice(1, -1)
        const curly = `{${Object.entries(value)
          .map(([k, v]) => `\u201c${inner(k)}\u201d: \u201c${inner(v)}\u201d`)
          .join(', ')}}`
        const result = repairJson(curly)
        // `__proto__` and friends stay refused, as in any answer.
        if (Object.keys(value).some((k) => k === '__proto__' || k === 'constructor')) return
        expect(result).toMatchObject({ ok: true, value, repairs: expect.arrayContaining(['typographic-quotes']) })
      }),
    )
  })

  it('refuses typographic quotes whose reading is a guess: an apostrophe that closes ‘…’, a string never closed, a backslash that escapes nothing', () => {
    expect(repairJson('{‘note’: ‘It’s done’}')).toMatchObject({ ok: false, guess: true })
    expect(repairJson('{“note”: “cut')).toMatchObject({ ok: false, incomplete: true })
    expect(repairJson('{“path”: “C:\\Users”}')).toMatchObject({ ok: false, guess: true })
  })

  it('never closes the brackets or the string of a value that may have been cut', () => {
    expect(repairJson('{"items": [1, 2, {"a": "b')).toMatchObject({ ok: false, incomplete: true, message: expect.stringMatching(/cut off/) })
  })

  it('closes the brackets of a value whose block the model ended', () => {
    expect(repairJson('{"items": [1, 2, {"a": "b"', undefined, { blockEnded: true })).toEqual({
      ok: true,
      value: { items: [1, 2, { a: 'b' }] },
      repairs: ['closed-brackets'],
    })
  })

  it('drops comments', () => {
    expect(repairJson('{"a": 1, // the count\n "b": /* two */ 2}')).toEqual({ ok: true, value: { a: 1, b: 2 }, repairs: ['comments'] })
  })

  it('refuses prose, which a repairer would turn into a JSON string', () => {
    expect(repairJson('The answer is yes. It is good.').ok).toBe(false)
  })

  it('keeps refusing prototype-polluting keys after repair', () => {
    expect(repairJson("{'__proto__': {'admin': true},}").ok).toBe(false)
  })

  it('reports no repair for valid JSON', () => {
    expect(repairJson('{"a": [1]}')).toEqual({ ok: true, value: { a: [1] }, repairs: [] })
  })
})

describe('findTaggedBlocks', () => {
  it('finds tool-call blocks with and without closing tags', () => {
    const text = '<tool_call>\n{"a": 1}\n</tool_call>\n<tool_call>{"b": 2}<tool_call>{"c": 3'
    expect(findTaggedBlocks(text, 8).map((b) => b.content.trim())).toEqual(['{"a": 1}', '{"b": 2}', '{"c": 3'])
  })

  it('ignores HTML-like tags that are not about calls', () => {
    expect(findTaggedBlocks('<div>{"a": 1}</div><li>x</li>', 8)).toEqual([])
  })
})

describe('detectRepairs', () => {
  it('labels unquoted keys and leaves quoted text alone', () => {
    expect(detectRepairs('{a: "None, True // not a comment"}')).toEqual(['unquoted-keys'])
  })
})

describe('repairFinalAnswer', () => {
  it('joins several tool-call blocks into one array when the schema wants a list', () => {
    const text = '<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>\n<tool_call>\n{"name": "g", "arguments": {}}\n</tool_call>'
    const result = repairFinalAnswer(text, Calls)
    expect(result).toEqual({
      ok: true,
      value: [
        { name: 'f', arguments: { x: 1 } },
        { name: 'g', arguments: {} },
      ],
      repairs: ['tool-call-tags', 'joined-blocks'],
    })
  })

  it('repairs a fenced block and names where it came from', () => {
    const text = "Here:\n```python\nprint('hi')\n```\n```json\n{'name': 'x', 'ok': False, 'note': None}\n```"
    const result = repairFinalAnswer(text, Answer)
    expect(result).toMatchObject({ ok: true, value: { name: 'x', ok: false, note: null } })
    expect(result).toHaveProperty('repairs', expect.arrayContaining(['fenced-block', 'python-literals']))
  })

  it('never picks one value out of several: all are accepted together or none', () => {
    const text = "```json\n{'wrong': 1}\n```\n```json\n{'name': 'x', 'ok': False, 'note': None}\n```"
    expect(repairFinalAnswer(text, Answer)).toEqual({ ok: false })
  })

  it('accepts all sixteen tool-call blocks, not the first eight', () => {
    const text = Array.from({ length: 16 }, (_, i) => `<tool_call>\n{'name': 'f', 'arguments': {'i': ${i}}}\n</tool_call>`).join('\n')
    const result = repairFinalAnswer(text, Calls)
    expect(result).toMatchObject({ ok: true, value: Array.from({ length: 16 }, (_, i) => ({ name: 'f', arguments: { i } })) })
  })

  it('fails when the third of three blocks is invalid, instead of falling back to the first', () => {
    const text = "<tool_call>{'name': 'f', 'arguments': {}}</tool_call><tool_call>{'name': 'g', 'arguments': {}}</tool_call><tool_call>{'name': 3}</tool_call>"
    expect(repairFinalAnswer(text, Calls)).toEqual({ ok: false })
    expect(repairFinalAnswer(text, compileSchema(Type.Object({ name: Type.String(), arguments: Type.Record(Type.String(), Type.Unknown()) })))).toEqual({
      ok: false,
    })
  })

  it('joins calls: tool-call blocks, <|im_start|> turns, call envelopes, never other values with prose between', () => {
    const prose = "First {'name': 'f', 'arguments': {}} and then {'name': 'g', 'arguments': {}}."
    expect(repairFinalAnswer(prose, Calls)).toMatchObject({ ok: true, value: [{ name: 'f' }, { name: 'g' }] })
    expect(repairFinalAnswer("First {'name': 'f'} and then {'name': 'g'}.", Calls)).toEqual({ ok: false })
    const turns = "{'name': 'f', 'arguments': {}}<|im_end|>\n<|im_start|>assistant\n{'name': 'g', 'arguments': {}}"
    expect(repairFinalAnswer(turns, Calls)).toMatchObject({ ok: true, value: [{ name: 'f' }, { name: 'g' }] })
    const tagged = "<tool_call>{'name': 'f', 'arguments': {}}</tool_call>\n<tool_call>{'name': 'g', 'arguments': {}}</tool_call>"
    expect(repairFinalAnswer(tagged, Calls)).toMatchObject({ ok: true, value: [{ name: 'f' }, { name: 'g' }] })
  })

  it('refuses to drop an ellipsis, which would invent a shorter value', () => {
    expect(repairJson('{"entries": [{"n": "A"}, ...]}')).toMatchObject({ ok: false, message: /ellipsis/ })
    expect(repairFinalAnswer('Here is the extracted data: { "entries": [...', compileSchema(Type.Object({ entries: Type.Array(Type.Unknown()) })))).toEqual({
      ok: false,
    })
    expect(repairJson("{'note': 'wait...', 'ok': True}")).toMatchObject({ ok: true, value: { note: 'wait...', ok: true } })
  })

  it('rejects a repair the schema rejects', () => {
    expect(repairFinalAnswer("{'name': 1, 'ok': True, 'note': None}", Answer)).toEqual({ ok: false })
  })

  it('does not turn prose into an array of sentences', () => {
    expect(repairFinalAnswer('First, tags. Second, more tags.', Tags)).toEqual({ ok: false })
  })

  it('gives up on answers longer than the size bound', () => {
    const long = `{'name': 'x', 'ok': True, 'note': '${'a'.repeat(200)}'}`
    expect(repairFinalAnswer(long, Answer, { maxRepairLength: 100 })).toEqual({ ok: false })
    expect(repairFinalAnswer(long, Answer)).toMatchObject({ ok: true })
  })

  it('waits for an asynchronous schema', async () => {
    const asyncSchema = { ...Answer, validate: (v: unknown) => Promise.resolve(Answer.validate(v)) }
    await expect(repairFinalAnswer("```json\n{'name': 'y', 'ok': True, 'note': None}\n```", asyncSchema)).resolves.toMatchObject({
      ok: true,
      value: { name: 'y' },
    })
    await expect(repairFinalAnswer("```json\n{'name': 2, 'ok': True, 'note': None}\n```", asyncSchema)).resolves.toEqual({ ok: false })
  })

  it('never accepts a value the schema rejects, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const result = repairFinalAnswer(text, Answer)
        if (result instanceof Promise) return false
        return !result.ok || Answer.validate(result.value) instanceof Promise || (Answer.validate(result.value) as { ok: boolean }).ok
      }),
    )
  })
})

describe('validateFinalAnswer with repair', () => {
  it('accepts a repaired answer and lists what was repaired', () => {
    const verdict = validateFinalAnswer("{'name': 'a', 'ok': True, 'note': None,}", Answer, { repair: true })
    expect(verdict).toMatchObject({ ok: true, value: { name: 'a', ok: true, note: null } })
    expect(verdict).toHaveProperty('repairs', expect.arrayContaining(['python-literals', 'trailing-comma']))
  })

  it('keeps the original parse error when the repair fails the schema', () => {
    const verdict = validateFinalAnswer("{'name': 3}", Answer, { repair: true })
    expect(verdict).toMatchObject({ ok: false, failure: { stage: 'json-parse' } })
  })

  it('keeps the original schema error when no other candidate passes', () => {
    const verdict = validateFinalAnswer('{"name": 12345}', Answer, { repair: true })
    expect(verdict).toMatchObject({ ok: false, failure: { stage: 'schema-validate', parsed: { name: 12345 } } })
  })

  it('does not repair when repair is off', () => {
    expect(validateFinalAnswer("{'name': 'a', 'ok': True, 'note': None}", Answer)).toMatchObject({ ok: false })
  })

  it('returns no repairs for a valid answer', () => {
    const verdict = validateFinalAnswer('{"name": "a", "ok": true, "note": null}', Answer, { repair: true })
    expect(verdict).toEqual({ ok: true, value: { name: 'a', ok: true, note: null }, extractedFrom: 'direct' })
  })
})
