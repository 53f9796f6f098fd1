import { describe, expect, it } from 'vitest'
import { utf8Length } from '../../src/model/utf8-length.ts'
import { jsonBytes } from '../../src/policies/budget/json-bytes.ts'

/** What jsonBytes must equal: the UTF-8 length of what JSON.stringify writes, 0 when it writes nothing or throws. */
const written = (value: unknown): number => {
  try {
    return utf8Length(JSON.stringify(value) ?? '')
  } catch {
    return 0
  }
}

// A small seeded generator, so a failure replays.
const random = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
  return seed / 2_147_483_648
}

const UNITS = [
  'a',
  'Z',
  ' ',
  '"',
  '\\',
  '\n',
  '\t',
  '\b',
  '\f',
  '\r',
  '\u0000',
  '\u001f',
  '\u007f',
  'é',
  '€',
  '\u2028',
  '日',
  '😀',
  '\ud800',
  '\udc00',
  'x\ud83d',
]
const NUMBERS = [0, -0, 1, -1, 9, 10, 99, 100, 123_456, -987_654_321, 2 ** 53, 1e20, 1e21, 1.5, -0.001, 1e-7, 123.456, Number.MAX_VALUE, Number.MIN_VALUE]
const ODD = [undefined, () => 1, Symbol('s'), Number.NaN, Number.POSITIVE_INFINITY, null, true, false]

function value(next: () => number, depth: number): unknown {
  const roll = next()
  if (depth > 3 || roll < 0.3) {
    const pick = next()
    if (pick < 0.4) return Array.from({ length: Math.floor(next() * 6) }, () => UNITS[Math.floor(next() * UNITS.length)]).join('')
    if (pick < 0.7) return NUMBERS[Math.floor(next() * NUMBERS.length)]
    return ODD[Math.floor(next() * ODD.length)]
  }
  if (roll < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1))
  const object: Record<string, unknown> = {}
  for (let i = Math.floor(next() * 4); i > 0; i--) object[String(value(next, 9))] = value(next, depth + 1)
  return object
}

describe('jsonBytes', () => {
  it('measures what JSON.stringify writes, escapes, lone surrogates and left-out values included', () => {
    const next = random(7)
    for (let i = 0; i < 3_000; i++) {
      const v = value(next, 0)
      expect(jsonBytes(v)).toBe(written(v))
    }
  })

  it('measures a JSON Schema as JSON.stringify writes it', () => {
    const schema = { type: 'object', properties: { action: { enum: ['refund', 'reject'] }, amount: { type: 'number', minimum: 0.5 } }, required: ['action'] }
    expect(jsonBytes(schema)).toBe(written(schema))
  })

  it('leaves to JSON.stringify what only it knows: toJSON, classes, boxed values, bigints, cycles, huge values, throwing getters', () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    const deep: unknown[] = []
    let at = deep
    for (let i = 0; i < 100; i++) at.push((at = []))
    const cases: unknown[] = [
      { toJSON: () => ({ much: 'longer than it looks' }) },
      [{ when: new Date(0) }],
      new Map([[1, 2]]),
      Object.assign(Object.create(null) as object, { a: 'b' }),
      [new String('boxed'), new Number(5), new Boolean(false)],
      { big: 1n },
      cyclic,
      deep,
      new Array(1_000_000),
      {
        get boom(): never {
          throw new Error('no')
        },
      },
      Object.defineProperty({ shown: 1 }, 'hidden', { value: 'long hidden text', enumerable: false }),
      { [Symbol('k')]: 'left out', kept: 'yes' },
      Object.assign([1, 2], { extra: 'ignored' }),
      new Uint8Array([1, 2, 3]),
      undefined,
      () => 1,
    ]
    for (const c of cases) expect(jsonBytes(c)).toBe(written(c))
  })

  it('follows a toJSON added to Object.prototype after a first measure', () => {
    const schema = { type: 'string' }
    expect(jsonBytes(schema)).toBe(written(schema))
    const proto = Object.prototype as { toJSON?: () => unknown }
    proto.toJSON = () => 'a much longer replacement text'
    try {
      expect(jsonBytes(schema)).toBe(written(schema))
    } finally {
      delete proto.toJSON
    }
  })

  it('measures keys that are prototype names, escapes or line breaks as JSON.stringify writes them', () => {
    const hostile = [
      JSON.parse('{"__proto__": {"polluted": true}, "constructor": "Ferrari", "prototype": "v2"}'),
      { 'line\nbreak': 'a\u2028b', 'quote"key': '\\', '\u0000': [null, -0, 1e21, 5e-7] },
      Object.assign(Object.create(null), { toString: 'x', hasOwnProperty: 1, valueOf: [] }),
    ]
    for (const value of hostile) expect(jsonBytes(value)).toBe(written(value))
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
  })
})
