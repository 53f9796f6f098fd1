import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileSchema, type FinalAnswerResult, formatFeedback, parseJsonSafe, validateFinalAnswer, validateToolArgs } from '../../src/validation/index.ts'
import { findDuplicateKey } from '../../src/validation/json/duplicate-keys.ts'
import { findNonFiniteNumber } from '../../src/validation/json/non-finite.ts'
import { NOT_PARSED, parseJsonFast } from '../../src/validation/json/parse-json-fast.ts'
import { showInvisible } from '../../src/validation/schema/visible-text.ts'

const Anything = compileSchema({})
const Amount = compileSchema({ type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'], additionalProperties: false })
const Action = compileSchema({ type: 'object', properties: { action: { enum: ['refund', 're\u200bject'] } }, required: ['action'] })

function verdict(text: string, schema = Anything): FinalAnswerResult<unknown> {
  const result = validateFinalAnswer(text, schema, { repair: true })
  if (result instanceof Promise) throw new Error('expected a synchronous verdict')
  return result
}
const failureOf = (text: string, schema = Anything) => {
  const result = verdict(text, schema)
  if (result.ok) throw new Error(`accepted: ${JSON.stringify(result.value)}`)
  return result.failure
}

describe('Non-finite numbers', () => {
  it('refuses a number too large for JSON, saying it would read as Infinity, under any schema', () => {
    for (const schema of [Anything, Amount]) {
      const failure = failureOf('{"amount": 1e999}', schema)
      expect(failure.parseError).toMatch(/the number 1e999 .* too large for a JSON number and would read as Infinity/)
      expect(failure.message).not.toMatch(/expected number, got number/)
    }
    expect(failureOf('{"amount": -2E+308}').parseError).toMatch(/-2E\+308/)
    expect(failureOf(`{"amount": 1${'0'.repeat(309)}}`).parseError).toMatch(/too large/)
  })

  it('refuses NaN and Infinity literals, saying JSON has none, and never repairs them into strings', () => {
    for (const text of ['{"amount": NaN}', '{"amount": Infinity}', '{"amount": -Infinity}', "{'amount': NaN}"]) {
      const failure = failureOf(text)
      expect(failure.parseError).toMatch(/(?:NaN|Infinity) \(at character \d+\) is not a JSON number/)
    }
  })

  it('keeps large finite numbers, and exponents inside strings', () => {
    expect(verdict('{"amount": 1e308}')).toMatchObject({ ok: true, value: { amount: 1e308 } })
    expect(verdict('{"id": "1e999", "amount": 5}')).toMatchObject({ ok: true, value: { id: '1e999', amount: 5 } })
  })

  it('is refused by parseJsonSafe with its own reason, and left to the full path by parseJsonFast', () => {
    expect(parseJsonSafe('[1e999]')).toMatchObject({ ok: false, reason: 'non-finite' })
    expect(parseJsonFast('[1e999]')).toBe(NOT_PARSED)
  })

  it('finds every overflowing number JSON.parse reads as Infinity', () => {
    fc.assert(
      fc.property(fc.integer({ min: 309, max: 99999 }), fc.boolean(), (exponent, negative) => {
        const text = `{"a": [1, ${negative ? '-' : ''}9e${exponent}]}`
        expect(findNonFiniteNumber(text, JSON.parse(text))).toBeDefined()
      }),
    )
  })
})

describe('Integers a JSON number cannot hold', () => {
  it('refuses an integer that would read as another one, naming both, under any schema', () => {
    for (const schema of [Anything, Amount]) {
      const failure = failureOf('{"amount": 12345678901234567890}', schema)
      expect(failure.parseError).toMatch(/the integer 12345678901234567890 \(at character 11\) .* would read as 12345678901234567000: write it as a string/)
    }
    expect(failureOf('[9007199254740993]').parseError).toMatch(/would read as 9007199254740992/)
    expect(failureOf("{'amount': -12345678901234567890,}").parseError).toMatch(/-12345678901234567890/)
  })

  it('keeps integers whose reading shows the same value, and long digits in strings or fractions', () => {
    expect(verdict('[9007199254740992, 100000000000000000000, -9007199254740991]')).toMatchObject({ ok: true })
    expect(verdict(`[1${'0'.repeat(65)}]`)).toMatchObject({ ok: true, value: [1e65] })
    expect(verdict('{"id": "12345678901234567890", "ratio": 0.12345678901234567890, "big": 1.2345678901234567890e25}')).toMatchObject({ ok: true })
  })

  it('is refused by parseJsonSafe and validateToolArgs with its own reason, and left to the full path by parseJsonFast', () => {
    expect(parseJsonSafe('{"order_id": 98765432109876543210}')).toMatchObject({ ok: false, reason: 'inexact-integer' })
    expect(parseJsonFast('{"order_id": 98765432109876543210}')).toBe(NOT_PARSED)
    const args = validateToolArgs('{"order_id": 98765432109876543210}', Anything)
    if (args instanceof Promise || args.ok) throw new Error('expected a synchronous refusal')
    expect(args.failure.message).toMatch(/the integer 98765432109876543210/)
  })

  it('accepts an integer exactly when the number it reads as shows the same digits (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }), (n) => {
        const shown = String(Number(n))
        fc.pre(!shown.includes('e'))
        expect(verdict(`{"n": ${n}}`).ok).toBe(BigInt(shown) === n)
      }),
      { numRuns: 2000 },
    )
  })
})

describe('Duplicate keys', () => {
  it('refuses a key written twice with different values, naming the key and both values', () => {
    const failure = failureOf('{"amount": 50, "note": "x", "amount": 45}', Amount)
    expect(failure.issues).toEqual([expect.objectContaining({ path: 'amount', code: 'other' })])
    expect(failure.parseError).toMatch(/the key 'amount' is written twice in the same object with different values \(50, then 45\)/)
    expect(formatFeedback({ target: 'final', stage: failure.stage, issues: failure.issues })).toMatch(/^- 'amount': written twice in the same object/m)
  })

  it('refuses a key written twice with white space before its colon after a string holding a quote and a colon', () => {
    const failure = failureOf('{"note": "\\":", "amount" :50, "amount" :45}')
    expect(failure.parseError).toMatch(/the key 'amount' is written twice in the same object with different values \(50, then 45\)/)
  })

  it('finds duplicates at any depth, in arrays too', () => {
    expect(findDuplicateKey('{"a": [{"b": 1, "b": 2}]}', { a: [{ b: 2 }] })).toEqual({ segments: ['a', 0, 'b'], first: 1, last: 2 })
    expect(parseJsonSafe('{"a": {"b": {"c": true, "c": false}}}')).toMatchObject({ ok: false, reason: 'duplicate-key', issue: { path: 'a.b.c' } })
  })

  it('accepts equal duplicates, and colons or escaped quotes inside strings', () => {
    expect(verdict('{"amount": 50, "amount": 50}', Amount)).toMatchObject({ ok: true, value: { amount: 50 } })
    expect(parseJsonSafe('{"note": "at 10:30, \\"a\\": see https://x.y", "n": 1}')).toMatchObject({ ok: true })
    expect(parseJsonSafe('{"a" : 1, "b"\n:\t2}')).toMatchObject({ ok: true, value: { a: 1, b: 2 } })
    expect(parseJsonSafe('{"a" : 1, "a"\n: 2}')).toMatchObject({ ok: false, reason: 'duplicate-key' })
  })

  it('leaves the text to the full path in parseJsonFast', () => {
    expect(parseJsonFast('{"amount": 50, "amount": 45}')).toBe(NOT_PARSED)
    expect(parseJsonFast('{"amount": 50}')).toEqual({ amount: 50 })
  })

  it('finds a duplicate exactly when one key of an object is written twice with different values', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1, maxKeys: 5 }), fc.jsonValue(), fc.nat(), (object, other, pick) => {
        const keys = Object.keys(object)
        const key = keys[pick % keys.length] as string
        const text = `${JSON.stringify(object).slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(other)}}`
        const found = findDuplicateKey(text, JSON.parse(text))
        const same = JSON.stringify(JSON.parse(JSON.stringify(object[key]))) === JSON.stringify(JSON.parse(JSON.stringify(other)))
        if (same) expect(found).toBeUndefined()
        else expect(found?.segments).toEqual([key])
        expect(findDuplicateKey(JSON.stringify(object), JSON.parse(JSON.stringify(object)))).toBeUndefined()
      }),
      { numRuns: 500 },
    )
  })
})

describe('Invisible characters in feedback', () => {
  it('shows a zero-width space in a key escaped', () => {
    const failure = failureOf('{"amo\u200bunt": 5}', Amount)
    expect(failure.message).toContain('amo\\u200bunt')
    expect(failure.message).not.toContain('\u200b')
  })

  it('shows invisible characters in enum values and received values escaped', () => {
    const failure = failureOf('{"action": "refund\u200d"}', Action)
    expect(failure.message).toContain('re\\u200bject')
    expect(failure.message).toContain('refund\\u200d')
    expect(failure.message).not.toMatch(/[\u200b\u200d]/)
  })

  it('escapes every invisible character and nothing else', () => {
    expect(showInvisible('a\u00ad\u200e\u202e\u2066\ufeffb')).toBe('a\\u00ad\\u200e\\u202e\\u2066\\ufeffb')
    expect(showInvisible('plain text, émigré, 日本')).toBe('plain text, émigré, 日本')
  })

  it('escapes C1 controls (a NEL ends a line for many readers) and tag characters (hidden text)', () => {
    expect(showInvisible('a\u0085b\u009bc')).toBe('a\\u0085b\\u009bc')
    expect(showInvisible('x\u{E0049}\u{E007F}y')).toBe('x\\udb40\\udc49\\udb40\\udc7fy')
    const failure = failureOf('{"amo\u0085unt\u{E0041}": 5}', Amount)
    expect(failure.message).toContain('amo\\u0085unt\\udb40\\udc41')
    expect(failure.message).not.toMatch(/[\u0085]|\u{E0041}/u)
    expect(showInvisible('emoji 😀 stays')).toBe('emoji 😀 stays')
  })
})

describe('Unescaped quotes inside strings', () => {
  it('repairs inner quotes where the reading is unambiguous', () => {
    expect(verdict('{"note": "He said "yes" to the refund"}')).toMatchObject({ ok: true, value: { note: 'He said "yes" to the refund' } })
    const result = verdict('Sure: {"note": "He said "yes" to the refund", "amount": 5}')
    expect(result).toMatchObject({ ok: true, value: { note: 'He said "yes" to the refund', amount: 5 } })
    expect(result.ok && result.repairs).toContain('inner-quotes')
  })

  it('says what is wrong, never that a word is a bare name, when the reading is ambiguous', () => {
    const failure = failureOf('{"note": "He said "yes", then left", "amount": 5}')
    expect(failure.parseError).toMatch(/a quote inside a string is not escaped .* write quotes inside strings as \\"/)
    expect(failure.parseError).not.toMatch(/bare name/)
    expect(failureOf('{"a": "Say "hi"}').parseError).toMatch(/a quote inside a string is not escaped/)
  })

  it('takes no quote for an inner one unless it opens after a space and closes before more of the string', () => {
    expect(verdict('["hello,"world"]').ok).toBe(false)
    expect(verdict('{"a" 2}')).toMatchObject({ ok: true, value: { a: 2 } })
    expect(verdict('["a" 2]')).toMatchObject({ ok: true, value: ['a', 2] })
  })
})
