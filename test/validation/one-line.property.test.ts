import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { cutAt } from '../../src/validation/schema/received.ts'
import { oneLine } from '../../src/validation/building-blocks.ts'

// The definition: whitespace runs become one space, the ends are trimmed, and beyond `max` the text is cut with `…`.
function reference(text: string, max: number): string {
  const head = text.length > max * 4 ? text.slice(0, max * 4) : text
  const flat = head.replace(/\s+/g, ' ').trim()
  return flat.length > max || head !== text ? `${cutAt(flat, max)}…` : flat
}

describe('oneLine', () => {
  it('takes its shortcut only where flattening would change nothing', () => {
    const whitespace = fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\u3000', '\ufeff', '\v', '\f')
    const text = fc.array(fc.oneof(fc.string({ maxLength: 6 }), whitespace), { maxLength: 12 }).map((parts) => parts.join(''))
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 40 }), (t, max) => {
        expect(oneLine(t, max)).toBe(reference(t, max))
      }),
      { numRuns: 2000 },
    )
  })

  it('returns a short single-spaced line as it is', () => {
    const line = '\'amount\': expected number, got "USD 50"'
    expect(oneLine(line, 200)).toBe(line)
  })
})
