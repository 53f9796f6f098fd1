import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileSchema, extractJson, repairJson, validateFinalAnswer, type FinalAnswerResult } from '../../src/validation/index.ts'

const Anything = compileSchema({})
const ObjectOfAnything = compileSchema({ type: 'object' })

function sync<T>(result: FinalAnswerResult<T> | Promise<FinalAnswerResult<T>>): FinalAnswerResult<T> {
  if (result instanceof Promise) throw new Error('expected a synchronous verdict')
  return result
}
const check = (text: string, schema = Anything) => sync(validateFinalAnswer(text, schema, { repair: true }))
const parseError = (text: string, schema = Anything): string => {
  const verdict = check(text, schema)
  if (verdict.ok) throw new Error(`accepted ${JSON.stringify(verdict.value)}`)
  return verdict.failure.parseError ?? verdict.failure.message
}

describe('Repair never completes a cut answer, whatever the stop reason', () => {
  it.each([
    ['an open string', '{"country": "Br'],
    ['an open string in a list', '{"cities": ["Paris", "Ber'],
    ['a missing closing brace', '{"country": "Brazil"'],
    ['a missing closing bracket', '[1, 2, 3'],
    ['a cut number', '{"amount": 12'],
    ['a cut literal', '{"ok": tru'],
    ['a cut key', '{"country": "Brazil", "ci'],
    ['a dangling colon', '{"country":'],
    ['a dangling comma', '{"a": 1,'],
    ['a cut single-quoted string', "{'country': 'Br"],
    ['a cut block comment', '{"a": 1 /* note'],
    ['a cut inside a tool-call block', '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par'],
    ['a cut fenced block', '```json\n{"country": "Br'],
    ['prose then a cut value', 'Here is the answer: {"country": "Br'],
  ])('refuses %s and says it was cut', (_name, text) => {
    expect(parseError(text)).toMatch(/cut off/)
  })

  it('still closes a bracket the model left open before it closed the tool-call block', () => {
    expect(check('<tool_call>\n{"name": "f", "arguments": {"a": 1}\n</tool_call>')).toMatchObject({ ok: true, value: { name: 'f', arguments: { a: 1 } } })
  })

  it('still repairs slips that are not truncation', () => {
    expect(check("{'ok': True, 'n': None, 'list': [1, 2,],}")).toMatchObject({ ok: true, value: { ok: true, n: null, list: [1, 2] } })
    expect(check('{"a": 1, // note\n "b": 2}')).toMatchObject({ ok: true, value: { a: 1, b: 2 } })
    expect(check('{a: 1}')).toMatchObject({ ok: true, value: { a: 1 } })
  })

  it('refuses repairJson of a cut value unless the block was ended', () => {
    expect(repairJson('{"a": [1, 2')).toMatchObject({ ok: false, incomplete: true })
    expect(repairJson('{"a": [1, 2]', undefined, { blockEnded: true })).toMatchObject({ ok: true, value: { a: [1, 2] } })
  })

  it('accepts no strict prefix of a JSON object with a value other than the whole one (property)', () => {
    const json = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null))
    const objects = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.oneof(json, fc.array(json, { maxLength: 3 })), { minKeys: 1, maxKeys: 4 })
    fc.assert(
      fc.property(objects, fc.boolean(), (value, pretty) => {
        const whole = JSON.stringify(value, null, pretty ? 2 : undefined)
        for (let cut = 1; cut < whole.length; cut++) {
          const verdict = check(whole.slice(0, cut))
          if (verdict.ok) expect(verdict.value).toEqual(value)
        }
      }),
      { numRuns: 60 },
    )
  })
})

describe('Repair never takes a bare name for a literal', () => {
  it('refuses Python code whose values are variables', () => {
    expect(parseError("payload = {'case_id': case_id, 'details': True}")).toMatch(/bare name/)
    expect(parseError('{"user": user.name}')).toMatch(/bare name/)
    expect(parseError('{"total": NaN}')).toMatch(/NaN \(at character \d+\) is not a JSON number/)
    expect(parseError('{"a": undefined}')).toMatch(/bare name/)
  })

  it('keeps the Python literals and unquoted keys', () => {
    expect(check("{case_id: 'A-1', ok: False, none: None}")).toMatchObject({ ok: true, value: { case_id: 'A-1', ok: false, none: null } })
  })

  it('keeps exponents and hexadecimal-looking text inside strings', () => {
    expect(check("{'n': 1e5, 'id': 'case_id'}")).toMatchObject({ ok: true, value: { n: 100000, id: 'case_id' } })
  })
})

describe('Repair never invents a value the model did not write', () => {
  it.each([
    ['a Windows path (backslashes before letters)', '{"path": "C:\\Users\\me"}', /\\U in a string is not a JSON escape/],
    ['a hexadecimal escape', '{"code": "\\x41"}', /\\x in a string is not a JSON escape/],
    ['an escape in a single-quoted string', "{'color': '\\x1b[0m'}", /\\x in a string is not a JSON escape/],
    ['a minus sign with no digits', '{"amount": -}', /the number - is not complete/],
    ['a dot with no digits', '{"amount": .}', /the number \. is not complete/],
    ['a cut exponent', '{"amount": 1e+}', /the number 1e\+ is not complete/],
    ['a key with no value', '{"amount": , "currency": "EUR"}', /a key with no value/],
    ['a key with no value at the end', '{"amount":}', /a key with no value/],
    ['a Python triple-quoted string', '{"note": """paid"""}', /a string followed at once by a quote/],
  ])('refuses %s, saying what would have been invented', (_name, text, why) => {
    expect(parseError(text)).toMatch(why)
    expect(parseError(text)).toMatch(/a repair would invent a value/)
  })

  it('still repairs the slips whose reading is certain', () => {
    expect(check('{"path": "C:\\\\Users", "q": "it\\\'s", "n": 1.,}')).toMatchObject({ ok: true, value: { path: 'C:\\Users', q: "it's", n: 1 } })
    expect(check('{"a": .5, "b": -2.5e-3, "c": "\\u00e9",}')).toMatchObject({ ok: true, value: { a: 0.5, b: -0.0025, c: 'é' } })
    expect(check('{"a": "x" "b": "y"}')).toMatchObject({ ok: true, value: { a: 'x', b: 'y' } })
  })

  it('names an ellipsis as an ellipsis, not as a number', () => {
    for (const text of ['[1, 2, ...]', '{"entries": [{"n": "A"}, ...]}']) {
      const refused = repairJson(text)
      expect(refused.ok).toBe(false)
      if (!refused.ok) expect(refused.message).toMatch(/elides content with an ellipsis/)
    }
  })

  it('says the answer was cut when it was, rather than what a repair would invent', () => {
    expect(parseError('{"path": "C:\\Users", "tags": [1, 2')).toMatch(/cut off/)
  })

  it('reads an answer of a million strings in time linear in its length', () => {
    // Each string's escapes are read within that string: the 3.5-million-character text is read once
    // (reading to the end of the text for each string took minutes).
    expect(parseError(`{"${'a", "'.repeat(500_000)}`)).toMatch(/cut off/)
  })
})

describe('Repair never guesses at an ambiguous quote', () => {
  it('refuses apostrophes inside single-quoted strings', () => {
    expect(parseError("{'message': 'It's done, O'Brien'}")).toMatch(/ambiguous|bare name/)
    expect(parseError("{'message': 'don't'}")).toMatch(/ambiguous|bare name/)
  })

  it('keeps apostrophes inside double-quoted strings', () => {
    expect(check('{"message": "It\'s done, O\'Brien"}')).toMatchObject({ ok: true, value: { message: "It's done, O'Brien" } })
    expect(check("{'message': \"It's done\",}")).toMatchObject({ ok: true, value: { message: "It's done" } })
  })
})

describe('A final answer holding several JSON values', () => {
  const PROSE_BETWEEN = /separate JSON values with prose between them/

  it('is refused when prose stands between them (a retracted value and its correction), whatever the schema', () => {
    for (const schema of [Anything, ObjectOfAnything]) {
      expect(parseError('{"amount": 50}\nActually, the correct amount is {"amount": 60}', schema)).toMatch(PROSE_BETWEEN)
      expect(parseError('```json\n{"a": 1}\n```\nor rather\n```json\n{"a": 2}\n```', schema)).toMatch(PROSE_BETWEEN)
    }
  })

  it('never asks for exactly one value, which would make a model making parallel calls drop some', () => {
    for (const text of ['{"amount": 50}\nActually: {"amount": 60}', '{"a": 1}\n{"a": 2}']) {
      expect(parseError(text, ObjectOfAnything)).not.toMatch(/exactly one/)
      expect(parseError(text, ObjectOfAnything)).toMatch(/2 separate JSON values/)
    }
  })

  it('reads values written one after another with only separators between as a list, which an object schema refuses', () => {
    for (const text of [
      '{"a": 1}\n{"a": 2}',
      '{"a": 1}, {"a": 2}',
      '```json\n{"a": 1}\n```\n```json\n{"a": 2}\n```',
      '{"a": 1}<|im_end|>\n<|im_start|>assistant\n{"a": 2}',
    ]) {
      expect(check(text)).toMatchObject({ ok: true, value: [{ a: 1 }, { a: 2 }] })
      expect(parseError(text, ObjectOfAnything)).toMatch(/2 separate JSON values written one after another, and it must be one JSON object/)
    }
  })

  it('is refused by the repair stage too', () => {
    expect(parseError("{'amount': 50}\nor {'amount': 60}")).toMatch(PROSE_BETWEEN)
  })

  it('joins tool-call blocks, refusing a prose example next to them', () => {
    expect(check('<tool_call>{"name": "a"}</tool_call>\n<tool_call>{"name": "b"}</tool_call>')).toMatchObject({
      ok: true,
      value: [{ name: 'a' }, { name: 'b' }],
    })
    expect(parseError('<tool_call>{"name": "a"}</tool_call>\nFor example: {"name": "c"}')).toMatch(/\(1 of them outside tool-call blocks\)/)
  })

  it('says so from extractJson', () => {
    expect(extractJson('{"a": 1} then {"a": 2}')).toMatchObject({ ok: false, message: expect.stringMatching(PROSE_BETWEEN) })
  })
})
