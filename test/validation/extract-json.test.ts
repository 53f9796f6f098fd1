import { afterEach, describe, expect, it } from 'vitest'
import { extractJson } from '../../src/validation/index.ts'

afterEach(() => {
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
})

describe('extractJson', () => {
  it('parses the trimmed text directly', () => {
    expect(extractJson('  \n{"a": 1}\n ')).toEqual({ ok: true, value: { a: 1 }, source: 'direct', candidate: '{"a": 1}', count: 1 })
  })

  it('parses a scalar answer directly', () => {
    expect(extractJson(' 42 ')).toMatchObject({ ok: true, value: 42, source: 'direct' })
  })

  it('takes a fenced block surrounded by prose', () => {
    const text = 'Here is the refund:\n```json\n{"action": "refund"}\n```\nLet me know!'
    expect(extractJson(text)).toEqual({ ok: true, value: { action: 'refund' }, source: 'fenced', candidate: '{"action": "refund"}', count: 1 })
  })

  it('takes a plain fence without a language tag', () => {
    expect(extractJson('Result:\n```\n[1, 2]\n```')).toMatchObject({ ok: true, value: [1, 2], source: 'fenced' })
  })

  it('takes JSON fences one right after another as a list (one call per fence), and skips fences that hold no JSON', () => {
    const text = 'Code:\n```python\nprint("hi")\n```\nData:\n```json\n{"first": true}\n```\n```json\n{"second": true}\n```'
    expect(extractJson(text)).toMatchObject({ ok: true, value: [{ first: true }, { second: true }], source: 'joined', count: 2 })
    const apart = '```json\n{"first": true}\n```\nOr maybe:\n```json\n{"second": true}\n```'
    expect(extractJson(apart)).toMatchObject({ ok: false, message: expect.stringMatching(/^the answer holds 2 separate JSON values with prose between them/) })
    expect(extractJson('Code:\n```python\nprint("hi")\n```\nData:\n```json\n{"first": true}\n```')).toMatchObject({ ok: true, value: { first: true } })
  })

  it('takes a bare string or number from a JSON fence', () => {
    expect(extractJson('The answer:\n```json\n"yes"\n```')).toMatchObject({ ok: true, value: 'yes', source: 'fenced' })
    expect(extractJson('```\n42\n```')).toMatchObject({ ok: true, value: 42, source: 'fenced' })
  })

  it('takes a fence left open by a truncated answer', () => {
    expect(extractJson('Sure:\n```json\n{"a": 1}\n')).toMatchObject({ ok: true, value: { a: 1 }, source: 'fenced' })
  })

  it('takes the balanced object embedded in prose', () => {
    const text = 'I think the answer is {"a": {"b": "}"}} as asked.'
    expect(extractJson(text)).toEqual({ ok: true, value: { a: { b: '}' } }, source: 'embedded', candidate: '{"a": {"b": "}"}}', count: 1 })
  })

  it('takes no object of prose holding several, neither the first nor a list', () => {
    const text = 'I think the answer is {"a": 1} and also {"c": 2}.'
    expect(extractJson(text)).toEqual({
      ok: false,
      message:
        'the answer holds 2 separate JSON values with prose between them, so which one is the answer is unclear; send the answer alone, ' +
        'without remarks or examples between values (several calls: one per <tool_call> block, or one JSON list)',
    })
  })

  it('takes every tool-call block whatever separates them, and calls one per <|im_start|> turn', () => {
    const blocks = Array.from({ length: 16 }, (_, i) => `<tool_call>\n{"name": "f", "arguments": {"i": ${i}}}\n</tool_call>`).join('\n')
    expect(extractJson(blocks)).toMatchObject({ ok: true, count: 16, value: Array.from({ length: 16 }, (_, i) => ({ name: 'f', arguments: { i } })) })
    const imStart = '{"name": "a", "arguments": {}}<|im_end|>\n<|im_start|>assistant\n{"name": "b", "arguments": {}}'
    expect(extractJson(imStart)).toMatchObject({ ok: true, value: [{ name: 'a' }, { name: 'b' }], source: 'joined' })
  })

  it('refuses an answer of more than a thousand values whole, instead of keeping the first thousand', () => {
    const calls = (n: number) => Array.from({ length: n }, (_, i) => `<tool_call>{"i": ${i}}</tool_call>`).join('')
    expect(extractJson(calls(1000))).toMatchObject({ ok: true, count: 1000 })
    expect(extractJson(calls(1001))).toEqual({ ok: false, message: 'the response holds more than 1000 separate JSON values' })
  })

  it('fails when one of several values does not parse, naming each broken one', () => {
    const text = '<tool_call>{"name": "a"}</tool_call><tool_call>{"name": "b",}</tool_call><tool_call>{"name": \'c\'}</tool_call>'
    const result = extractJson(text)
    expect(result).toMatchObject({
      ok: false,
      message: /^2 of the 3 JSON values in the response are not valid JSON: value 2 \(at character \d+\): .+; value 3 \(at character \d+\): /,
    })
  })

  it('ends a value left open at the next tool-call tag, not at the end of the answer', () => {
    const text = '<tool_call>{"name": "a", "arguments": {"x": 1}</tool_call>\n<tool_call>{"name": "b"}</tool_call>'
    expect(extractJson(text)).toMatchObject({ ok: false, message: /^1 of the 2 JSON values .* value 1 \(at character 11\)/ })
  })

  it('skips prose brackets before the embedded value', () => {
    const text = 'See [note] and {not json} then [{"id": 3}]'
    expect(extractJson(text)).toMatchObject({ ok: true, value: [{ id: 3 }], source: 'embedded' })
  })

  it('leaves out citations and footnote numbers in the prose around an object', () => {
    for (const text of ['{"amount": 50}\n\nNote: based on policy [1].', 'Here: {"amount": 50} as per [2].', '{"amount": 50} (see ["note"] and [2, 3])']) {
      expect(extractJson(text)).toMatchObject({ ok: true, value: { amount: 50 }, source: 'embedded', count: 1 })
    }
  })

  it('leaves out a markdown link list after an object', () => {
    const text = '{"amount": 50}\n\nSee [the policy](https://x.example) [1].\n\n[1]: https://a.example\n[2]: https://b.example'
    expect(extractJson(text)).toMatchObject({ ok: true, value: { amount: 50 }, count: 1 })
  })

  it('leaves out an array of scalars in a code fence of another language next to a json fence', () => {
    for (const lang of ['python', 'ts']) {
      const text = `Example:\n\`\`\`${lang}\nx = [1, 2]\n\`\`\`\n\`\`\`json\n{"amount": 50}\n\`\`\``
      expect(extractJson(text)).toMatchObject({ ok: true, value: { amount: 50 }, source: 'fenced', count: 1 })
    }
  })

  it('counts arrays of scalars as values when the answer holds nothing else, or holds them in json fences or tags', () => {
    expect(extractJson('[1] and [2]')).toMatchObject({ ok: false, message: expect.stringMatching(/2 separate JSON values/) })
    expect(extractJson('```json\n[1, 2]\n```\nand {"a": 1}')).toMatchObject({ ok: false, message: expect.stringMatching(/2 separate JSON values/) })
    expect(extractJson('<tool_call>[1]</tool_call> and {"a": 1}')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/\(1 of them outside tool-call blocks\)/),
    })
    expect(extractJson('<tool_call>[1]</tool_call> {"a": 1}')).toMatchObject({ ok: true, value: [[1], { a: 1 }], count: 2 })
    expect(extractJson('<tool_call>[1]</tool_call><tool_call>{"a": 1}</tool_call>')).toMatchObject({ ok: true, value: [[1], { a: 1 }], count: 2 })
  })

  it('drops no object next to citations, tool-call tags and code fences: several values outside tags fail whole', () => {
    const text = '<tool_call>{"name": "a"}</tool_call>\n{"name": "b"}</tool_call> per [1]\n```python\n{"name": "c"}\n```'
    expect(extractJson(text)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/3 separate JSON values with prose between them \(2 of them outside tool-call blocks\)/),
    })
  })

  it('extracts an object followed by trailing prose', () => {
    expect(extractJson('{"a": 1}\nHope this helps!')).toMatchObject({ ok: true, value: { a: 1 }, source: 'embedded' })
  })

  it('says the response is empty for empty or whitespace-only text', () => {
    expect(extractJson('')).toEqual({ ok: false, message: 'the response is empty' })
    expect(extractJson(' \n\t ')).toEqual({ ok: false, message: 'the response is empty' })
  })

  it('says no JSON was found for plain prose', () => {
    expect(extractJson('I cannot help with that.')).toEqual({ ok: false, message: 'no JSON object or array found in the response' })
  })

  it('says what and where for broken JSON', () => {
    expect(extractJson('{"a": 1 "b": 2}')).toEqual({
      ok: false,
      position: 8,
      message: "not valid JSON: Expected ',' or '}' after property value in JSON at position 8 (line 1 column 9)",
    })
  })

  it('reports the position in the original text for a broken fenced value', () => {
    const result = extractJson('x\n```json\n{"a" 1}\n```')
    expect(result).toMatchObject({ ok: false, position: 10 + 5 })
  })

  it('refuses 100,000 levels of nesting without overflowing the stack', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000)
    expect(extractJson(deep)).toMatchObject({ ok: false, message: 'JSON nesting deeper than 256 levels at position 256' })
    expect(extractJson(`look: ${'{"a":'.repeat(100_000)}`)).toMatchObject({ ok: false })
    expect(extractJson('['.repeat(100_000))).toMatchObject({ ok: false })
  })

  it('refuses a 5 MB answer', () => {
    expect(extractJson(`{"a": "${'x'.repeat(5_000_000)}"}`)).toMatchObject({ ok: false, message: /too long/ })
  })

  it('refuses a __proto__ key instead of extracting the inner object', () => {
    expect(extractJson('{"__proto__": {"polluted": true}}')).toMatchObject({ ok: false, issue: { code: 'forbidden_key', path: '__proto__' } })
    expect(extractJson('Here: {"__proto__": {"polluted": true}} ok')).toMatchObject({ ok: false, issue: { code: 'forbidden_key' } })
  })

  it('refuses constructor.prototype', () => {
    expect(extractJson('{"constructor": {"prototype": {"x": 1}}}')).toMatchObject({ ok: false, message: /forbidden key 'constructor'/ })
  })

  it('refuses a constructor key holding a prototype, and takes prototype and constructor keys holding data', () => {
    expect(extractJson('{"a": {"constructor": {"prototype": {"polluted": true}}}}')).toMatchObject({
      ok: false,
      issue: { code: 'forbidden_key', path: 'a.constructor' },
    })
    expect(extractJson('{"prototype": "v2", "constructor": "Ford"}')).toMatchObject({ ok: true, value: { prototype: 'v2', constructor: 'Ford' } })
  })

  it('handles lone surrogates and NUL bytes without throwing', () => {
    expect(extractJson('\ud800 {"a": "\\u0000\ud800"} \udc00')).toMatchObject({ ok: true, value: { a: '\u0000\ud800' } })
    // A raw control character inside a JSON string is invalid JSON.
    expect(extractJson('{"a": "\u0000"}').ok).toBe(false)
    expect(extractJson('\u0000\u0000\ud800').ok).toBe(false)
  })

  it('stays fast on many unbalanced brackets', () => {
    const started = performance.now()
    expect(extractJson(`${'[ '.repeat(200_000)}{"a":1}`).ok).toBe(false)
    expect(performance.now() - started).toBeLessThan(2_000)
  })
})
