import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findDuplicateKey, HOLDS_NON_FINITE, keyCensus, mayRepeatKey } from '../../src/validation/json/duplicate-keys.ts'
import { findNonFiniteNumber, nonJsonNumberIn } from '../../src/validation/json/non-finite.ts'
import { parseJsonFast, NOT_PARSED } from '../../src/validation/json/parse-json-fast.ts'

const countKeys = (value: unknown): number =>
  typeof value !== 'object' || value === null
    ? 0
    : Array.isArray(value)
      ? value.reduce((n: number, v) => n + countKeys(v), 0)
      : Object.entries(value).reduce((n, [, v]) => n + 1 + countKeys(v), 0)

/** Whether a value holds a number past ±2^53 (an integer written there may read as another), or ±Infinity. */
const holdsUncertainNumber = (value: unknown): boolean =>
  typeof value === 'number' ? !(Math.abs(value) < 2 ** 53) : typeof value === 'object' && value !== null && Object.values(value).some(holdsUncertainNumber)

describe('keyCensus and the duplicate-key pre-check', () => {
  it('counts every key of any JSON value, and never finds a duplicate in text JSON.stringify wrote', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value)
        const parsed: unknown = JSON.parse(text)
        expect(keyCensus(parsed)).toBe(holdsUncertainNumber(parsed) ? HOLDS_NON_FINITE : countKeys(parsed))
        expect(findDuplicateKey(text, parsed)).toBeUndefined()
        if (text.split('":').length - 1 > countKeys(parsed)) expect(mayRepeatKey(text, countKeys(parsed))).toBe(true)
      }),
    )
  })

  it('finds a key written twice with any JSON white space before its colon, whatever strings holding a quote and a colon stand before it', () => {
    const space = fc.stringMatching(/^[ \t\n\r]{1,4}$/)
    fc.assert(
      fc.property(
        fc.array(fc.string(), { maxLength: 3 }),
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.integer(),
        space,
        space,
        (strings, key, n, ws1, ws2) => {
          // Each string value holding `":` writes `\":` in the text: a mark that is not a key.
          const head = strings.map((s, i) => `"s${i}":${JSON.stringify(`${s}":`)}`).join(',')
          const k = JSON.stringify(`k${key}`)
          const text = `{${head}${head === '' ? '' : ','}${k}${ws1}:${n}, ${k}${ws2}:${n + 1}}`
          const parsed: unknown = JSON.parse(text)
          expect(mayRepeatKey(text, keyCensus(parsed))).toBe(true)
          expect(findDuplicateKey(text, parsed)).toMatchObject({ first: n, last: n + 1 })
          expect(parseJsonFast(text, true)).toBe(NOT_PARSED)
        },
      ),
    )
  })

  it('finds a key written twice with different values wherever it is nested, and the fast parse hands it on', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ minLength: 1, maxLength: 8 }), fc.integer(), (inner, key, n) => {
        const text = `{"wrap":[${JSON.stringify(inner)},{${JSON.stringify(key)}:${n},${JSON.stringify(key)}:${n + 1}}]}`
        const parsed: unknown = JSON.parse(text)
        expect(findDuplicateKey(text, parsed)).toMatchObject({ first: n, last: n + 1 })
        expect(parseJsonFast(text, true)).toBe(NOT_PARSED)
      }),
    )
  })

  it('answers HOLDS_NON_FINITE for a number read as Infinity, wherever it sits', () => {
    for (const text of ['[1e999]', '{"a":{"b":[0,-1e400]}}', '{"amount":1e999,"x":1}']) {
      expect(keyCensus(JSON.parse(text))).toBe(HOLDS_NON_FINITE)
      expect(parseJsonFast(text, true)).toBe(NOT_PARSED)
    }
  })
})

describe('the non-finite finders', () => {
  it('name the number too large for JSON and its offset, whatever strings stand before it', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 4 }), fc.constantFrom('1e999', '-1e400', '9'.repeat(400)), (strings, big) => {
        const head = `{"s":${JSON.stringify(strings)},"n":`
        const text = `${head}${big}}`
        expect(findNonFiniteNumber(text, JSON.parse(text))).toEqual({ text: big, at: head.length })
      }),
    )
  })

  it('name a NaN or Infinity literal outside strings, never one inside a string', () => {
    fc.assert(
      fc.property(fc.string(), fc.constantFrom('NaN', 'Infinity', '-Infinity'), (inner, literal) => {
        const head = `{"s":${JSON.stringify(`${inner} NaN Infinity`)},"n":`
        expect(nonJsonNumberIn(`${head}${literal}}`)).toMatch(new RegExp(`^${literal} \\(at character ${head.length}\\)`))
        expect(nonJsonNumberIn(`${head}1}`)).toBeUndefined()
      }),
    )
  })
})
