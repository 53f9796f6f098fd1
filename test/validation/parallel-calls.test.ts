import { describe, expect, it } from 'vitest'
import { compileSchema, extractJson, type FinalAnswerResult, validateFinalAnswer } from '../../src/validation/index.ts'
import { tuplesToArrays } from '../../src/validation/repair/python-tuples.ts'

const Anything = compileSchema({})
const OneObject = compileSchema({ type: 'object' })

function verdict(text: string, schema = Anything, repair = true): FinalAnswerResult<unknown> {
  const result = validateFinalAnswer(text, schema, { repair })
  if (result instanceof Promise) throw new Error('expected a synchronous verdict')
  return result
}
const parseError = (text: string, schema = Anything) => {
  const result = verdict(text, schema)
  return result.ok ? undefined : (result.failure.parseError ?? result.failure.message)
}

const call = (city: string) => `{"name": "weather", "arguments": {"city": "${city}"}}`
const calls = [
  { name: 'weather', arguments: { city: 'Paris' } },
  { name: 'weather', arguments: { city: 'Rome' } },
]

describe('extractJson reads parallel calls in the shapes models write them', () => {
  it('reads calls separated by <|im_start|> markers, with prose before and after', () => {
    const text = `Here are the calls:\n<|im_start|>\n${call('Paris')}\n<|im_start|>\n${call('Rome')}\n<|im_start|>\nNote: two separate calls.`
    expect(extractJson(text)).toMatchObject({ ok: true, value: calls, source: 'joined', count: 2 })
  })

  it('reads calls one per <|im_start|> turn with a narrative between them', () => {
    const text = `1. Paris:\n<|im_start|>\n${call('Paris')}\n<|im_start|>\n\n2. Rome:\n<|im_start|>\n${call('Rome')}\n<|im_start|>`
    expect(extractJson(text)).toMatchObject({ ok: true, value: calls })
  })

  it('reads calls written one per line, or comma-separated', () => {
    expect(extractJson(`${call('Paris')}\n${call('Rome')}`)).toMatchObject({ ok: true, value: calls })
    expect(extractJson(`${call('Paris')},\n${call('Rome')}`)).toMatchObject({ ok: true, value: calls })
    expect(extractJson(`[${call('Paris')}],\n[${call('Rome')}]`)).toMatchObject({ ok: true, value: [[calls[0]], [calls[1]]] })
  })

  it('reads calls in several fences, one after another', () => {
    const text = `\`\`\`json\n${call('Paris')}\n\`\`\`\n\`\`\`json\n${call('Rome')}\n\`\`\``
    expect(extractJson(text)).toMatchObject({ ok: true, value: calls })
  })

  it('reads <tool_call> blocks with an opening tag missing', () => {
    const text = `<tool_call>\n${call('Paris')}\n</tool_call>\n${call('Rome')}\n</tool_call>\n`
    expect(extractJson(text)).toMatchObject({ ok: true, value: calls })
  })

  it('reads call envelopes whatever prose stands between them', () => {
    const text = `First I check Paris: ${call('Paris')}\nThen Rome: ${call('Rome')}`
    expect(extractJson(text)).toMatchObject({ ok: true, value: calls })
  })

  it('reads (name, {args}) pairs and "(name arguments: {...})" as calls whatever prose stands between them', () => {
    const pairs = "[('f', {'a': 1})]\n\nThen the second function:\n\n['g', {'b': 2}]"
    expect(verdict(pairs)).toMatchObject({ ok: true, value: [[['f', { a: 1 }]], ['g', { b: 2 }]] })
    const labelled = 'Calls:\n(f arguments: {"a": 1})\n\nand\n\n(g arguments: {"b": 2})'
    expect(extractJson(labelled)).toMatchObject({ ok: true, value: [{ a: 1 }, { b: 2 }] })
  })

  it('refuses values touching one another, which is a slip, not a list', () => {
    expect(extractJson('{"a":2}{}')).toMatchObject({ ok: false })
  })

  it('names touching values as written back to back, never as prose between them that is not there', () => {
    const result = extractJson('{"a": 1}{"a": 2}')
    expect(result).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^the answer holds 2 separate JSON values written back to back with nothing between them/),
    })
    if (!result.ok) {
      expect(result.message).not.toMatch(/prose|exactly one/)
      expect(result.message).toMatch(/several calls: one per <tool_call> block, or one JSON list/)
    }
    // Prose anywhere between the values is still named as prose.
    expect(extractJson('{"a": 1}{"a": 2} and then {"a": 3}')).toMatchObject({ ok: false, message: expect.stringMatching(/with prose between them/) })
  })

  it('refuses other values with prose between them, naming what was found, never asking for exactly one', () => {
    const result = extractJson('{"amount": 5}. Actually: {"amount": 6}')
    expect(result).toMatchObject({ ok: false, message: expect.stringMatching(/^the answer holds 2 separate JSON values with prose between them/) })
    if (!result.ok) {
      expect(result.message).not.toMatch(/exactly one/)
      expect(result.message).toMatch(/several calls: one per <tool_call> block, or one JSON list/)
    }
  })
})

describe('A Python list of (name, {args}) tuples', () => {
  it('is read by the repair stage as a list of [name, args] pairs', () => {
    const text = "[('book_flight', {'from': 'SFO', 'to': 'NRT'}), ('book_flight', {'from': 'NRT', 'to': 'SYD'})]"
    expect(verdict(text)).toMatchObject({
      ok: true,
      value: [
        ['book_flight', { from: 'SFO', to: 'NRT' }],
        ['book_flight', { from: 'NRT', to: 'SYD' }],
      ],
    })
    const result = verdict(text)
    expect(result.ok && result.repairs).toEqual(expect.arrayContaining(['python-tuples', 'single-quotes']))
  })

  it('is never told it holds separate values', () => {
    expect(parseError("[('f', {'a': 1}), ('g', {'b': 2})]", OneObject)).toBeDefined()
    expect(parseError("[('f', {'a': 1}), ('g', {'b': 2})]", OneObject)).not.toMatch(/separate JSON values/)
  })

  it('leaves code alone: a parenthesis that is not a tuple is never turned into a string', () => {
    expect(verdict("[('a', 'b']").ok).toBe(false)
    expect(verdict("{'a': max(1, 2)}").ok).toBe(false)
    expect(tuplesToArrays("[('f', {'a': '(x)'})]")).toBe("[['f', {'a': '(x)'}]]")
    expect(tuplesToArrays("[f({'a': 1})]")).toBe('code')
    expect(tuplesToArrays("{'a': '(x)'}")).toBe('none')
    expect(tuplesToArrays("[{'a': 1},  // this one fails (a bad value)\n {'a': 2}]")).toBe('none')
    expect(tuplesToArrays("[('f', {}) /* the first (only) call */]")).toBe("[['f', {}] /* the first (only) call */]")
  })
})

describe('validateFinalAnswer with a schema that wants one value', () => {
  it('refuses calls written one after another without telling the model to drop any', () => {
    const result = verdict(`${call('Paris')}\n${call('Rome')}`, OneObject)
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.failure.stage).toBe('schema-validate')
      expect(result.failure.message).toMatch(/holds 2 separate JSON values written one after another, and it must be one JSON object/)
      expect(result.failure.message).not.toMatch(/exactly one/)
    }
  })
})
