import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { shownValue, typeName } from '../../src/model/describe-value.ts'

describe('how a misused option is shown in an error message', () => {
  it('names null, arrays and every typeof', () => {
    expect([null, [], undefined, 'x', 1, true, {}, () => 1, Symbol('s'), 1n].map(typeName)).toEqual([
      'null',
      'an array',
      'undefined',
      'string',
      'number',
      'boolean',
      'object',
      'function',
      'symbol',
      'bigint',
    ])
  })

  it('quotes strings, cut at 40 characters, writes numbers and booleans, and never shows an object’s contents', () => {
    expect(shownValue('100')).toBe('"100"')
    expect(shownValue('x'.repeat(100))).toBe(`"${'x'.repeat(40)}…"`)
    expect(shownValue(Number.NaN)).toBe('NaN')
    expect(shownValue(false)).toBe('false')
    expect(shownValue({ apiKey: 'sk-secret' })).toBe('object')
  })

  it('answers a short line for any value, without throwing', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true, withNullPrototype: true }), (value) => {
        const shown = shownValue(value)
        expect(typeof shown).toBe('string')
        expect(shown.length).toBeLessThanOrEqual(44)
        expect(typeName(value)).toMatch(/^(null|an array|undefined|string|number|boolean|object|function|symbol|bigint)$/)
      }),
      { numRuns: 500 },
    )
  })
})
