import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { extractJson } from '../../src/validation/index.ts'
import { findForbiddenKey } from '../../src/validation/json/forbidden-keys.ts'

// JSON.stringify loses -0; the round trip is what extraction must reproduce.
const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

// fast-check 4 replaced `fullUnicodeString()` by the `binary` unit; raw UTF-16 units add lone
// surrogates, and the JSON-ish alphabet drives the bracket scanner and fence finder hard.
const fullUnicode = fc.string({ unit: 'binary' })
const utf16Units = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) })
const jsonish = fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', '`', '```', ' ', 'a', '1', ':', ',', '\n', 'true'), maxLength: 200 })

describe('extractJson (properties)', () => {
  it('extracts any serialised JSON value directly', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const result = extractJson(JSON.stringify(value))
        if (findForbiddenKey(value) !== undefined) {
          expect(result.ok).toBe(false)
        } else {
          expect(result).toMatchObject({ ok: true, source: 'direct' })
          if (result.ok) expect(result.value).toEqual(roundTrip(value))
        }
      }),
      { numRuns: 1000 },
    )
  })

  it('extracts any JSON value from a json fence with prose around it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const json = JSON.stringify(value, null, 2)
        fc.pre(!json.includes('```') && findForbiddenKey(value) === undefined)
        const result = extractJson(`Here is the result:\n\`\`\`json\n${json}\n\`\`\`\nAnything else?`)
        expect(result).toMatchObject({ ok: true, source: 'fenced' })
        if (result.ok) expect(result.value).toEqual(roundTrip(value))
      }),
      { numRuns: 1000 },
    )
  })

  it('extracts an object, reads several one per line as a list, and refuses several with prose between, whatever citations surround them', () => {
    const scalar = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string({ unit: fc.constantFrom('a', 'b', ' ', '1') }))
    const citation = fc.array(scalar, { minLength: 1, maxLength: 3 }).map((items) => `see ${JSON.stringify(items)}.`)
    const object = fc.dictionary(fc.constantFrom('a', 'b', 'name'), fc.oneof(scalar, fc.array(scalar)), { minKeys: 1 })
    fc.assert(
      fc.property(fc.array(object, { minLength: 1, maxLength: 4 }), fc.array(citation, { maxLength: 4 }), (objects, citations) => {
        const parts = objects.flatMap((value, i) => [JSON.stringify(value), citations[i] ?? ''])
        const result = extractJson(`Answer: ${parts.join('\n')}\n${citations.slice(objects.length).join(' ')}`)
        if (objects.length === 1) expect(result).toMatchObject({ ok: true, value: objects[0], count: 1 })
        else if (citations.slice(0, objects.length - 1).some((c) => c !== '')) {
          expect(result).toMatchObject({
            ok: false,
            message: expect.stringContaining(`the answer holds ${objects.length} separate JSON values with prose between them`),
          })
        } else expect(result).toMatchObject({ ok: true, value: objects, count: objects.length })
      }),
      { numRuns: 500 },
    )
  })

  it('never throws for arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fullUnicode, utf16Units, jsonish), (text) => {
        expect(typeof extractJson(text).ok).toBe('boolean')
      }),
      { numRuns: 1000 },
    )
  })
})
