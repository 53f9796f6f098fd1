import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { besideKey, epochKey, slotPart } from '../../src/store/redis/slot-keys.ts'

// Keys drawn from an alphabet rich in braces, so that tags, empty tags and stray braces all occur.
const keyChar = fc.constantFrom('a', 'b', ':', '{', '}', ' ', 'é')
const key = fc.string({ unit: keyChar, minLength: 1, maxLength: 12 })
const taggable = key.filter((k) => slotPart(k) !== k || !k.includes('}'))

describe('slot keys', () => {
  it('reads the hash tag as Redis Cluster does', () => {
    expect(slotPart('budget:a')).toBe('budget:a')
    expect(slotPart('{billing}:budget:a')).toBe('billing')
    expect(slotPart('a{b}c{d}')).toBe('b')
    expect(slotPart('{}x{y}')).toBe('{}x{y}')
    expect(slotPart('a{b')).toBe('a{b')
  })

  it('places a companion key in the slot of its key whenever the key can be tagged', () => {
    fc.assert(
      fc.property(taggable, fc.constantFrom(':holds', ':hold:', ':x{y}'), (k, suffix) => {
        expect(slotPart(besideKey(k, suffix))).toBe(slotPart(k))
        expect(slotPart(epochKey(k))).toBe(slotPart(k))
      }),
    )
  })

  it('keeps an untagged key name and tags only its companions', () => {
    expect(besideKey('budget:a', ':holds')).toBe('{budget:a}:holds')
    expect(besideKey('{billing}:budget:a', ':holds')).toBe('{billing}:budget:a:holds')
    expect(epochKey('{billing}:budget:a')).toBe('{billing}:rg-epoch')
    expect(epochKey('app:{rate:llm}:123')).toBe('app:{rate:llm}:rg-epoch')
    expect(epochKey('budget:a')).toBe('{budget:a}:rg-epoch')
  })
})
