import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { utf8Length, utf8Prefix } from '../../src/model/utf8-length.ts'

const encoded = (text: string): number => new TextEncoder().encode(text).length

describe('utf8Length', () => {
  it('counts 1 to 4 bytes per code point', () => {
    expect(utf8Length('a')).toBe(1)
    expect(utf8Length('é')).toBe(2)
    expect(utf8Length('日')).toBe(3)
    expect(utf8Length('😀')).toBe(4)
  })

  it('counts a lone surrogate as U+FFFD, even before another character', () => {
    expect(utf8Length('\uD800日')).toBe(6)
    expect(utf8Length('\uDC00')).toBe(3)
  })

  it('equals the length TextEncoder writes, whatever the string', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => utf8Length(text) === encoded(text)))
  })
})

describe('utf8Prefix', () => {
  it('keeps the longest prefix within the byte limit, never splitting a pair', () => {
    expect(utf8Prefix('a😀b', 4)).toBe(1)
    expect(utf8Prefix('a😀b', 5)).toBe(3)
  })

  it('never returns a prefix longer than the limit in bytes', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.nat(64), (text, max) => encoded(text.slice(0, utf8Prefix(text, max))) <= max))
  })
})
