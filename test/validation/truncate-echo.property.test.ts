import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { countFeedbackTokens, TRUNCATION_MARKER, truncateEcho } from '../../src/validation/index.ts'

describe('truncateEcho (bounds)', () => {
  it('keeps a short text with many tokens within a character bound below the marker length', () => {
    const echo = truncateEcho('😀'.repeat(10), { maxChars: 21, maxTokens: 9 })
    expect(echo.length).toBeLessThanOrEqual(21)
    expect(countFeedbackTokens(echo)).toBeLessThanOrEqual(9)
    expect(TRUNCATION_MARKER.startsWith(echo)).toBe(true)
  })

  it('never exceeds maxChars nor maxTokens, whatever the text and the bounds', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc.string({ unit: fc.constantFrom('😀', '€', 'a', ' ', '\n', '{'), maxLength: 60 }),
    )
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 70 }), fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }), (input, maxChars, maxTokens) => {
        const echo = truncateEcho(input, { maxChars, maxTokens })
        expect(echo.length).toBeLessThanOrEqual(maxChars)
        if (maxTokens !== undefined) expect(countFeedbackTokens(echo)).toBeLessThanOrEqual(maxTokens)
      }),
      { numRuns: 2000 },
    )
  })
})
