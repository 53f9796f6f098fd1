import fc from 'fast-check'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { Type } from 'typebox'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mockSyncRequire } from '../support/sync-require-mock.ts'

const TOKENIZER = 'gpt-tokenizer/encoding/o200k_base'
const exactTokens = (text: string) => encode(text, { disallowedSpecial: new Set() }).length
const utf8 = (text: string) => new TextEncoder().encode(text).length

async function withoutTokenizer(mode: 'missing' | 'no-sync-require') {
  if (mode === 'missing') mockSyncRequire('record', [TOKENIZER])
  else mockSyncRequire('none')
  return { ...(await import('../../src/index.ts')), ...(await import('../../src/validation/index.ts')) }
}

beforeEach(() => {
  vi.resetModules()
})
afterEach(() => {
  vi.doUnmock('../../src/model/sync-require.ts')
})

describe('countFeedbackTokens without gpt-tokenizer', () => {
  it('counts UTF-8 bytes when the package is not installed', async () => {
    const { countFeedbackTokens } = await withoutTokenizer('missing')
    expect(countFeedbackTokens('hello world')).toBe(11)
    expect(countFeedbackTokens('é😀')).toBe(6)
  })

  it('counts UTF-8 bytes where nothing can be required synchronously', async () => {
    const { countFeedbackTokens } = await withoutTokenizer('no-sync-require')
    expect(countFeedbackTokens('{"a": 1}')).toBe(8)
  })

  it('never counts fewer tokens than o200k_base', async () => {
    const { countFeedbackTokens } = await withoutTokenizer('missing')
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => countFeedbackTokens(text) >= exactTokens(text)))
  })
})

describe('cutToTokens without gpt-tokenizer', () => {
  it('cuts to the longest prefix within the limit in UTF-8 bytes, never inside a character', async () => {
    const { cutToTokens } = await withoutTokenizer('missing')
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.nat(400), (text, limit) => {
        const { text: kept, cut } = cutToTokens(text, limit)
        expect(text.startsWith(kept)).toBe(true)
        expect(cut).toBe(kept !== text)
        expect(utf8(kept)).toBeLessThanOrEqual(limit)
        expect(exactTokens(kept)).toBeLessThanOrEqual(limit)
        if (cut) {
          const next = String.fromCodePoint(text.codePointAt(kept.length) as number)
          expect(utf8(kept + next)).toBeGreaterThan(limit)
        }
      }),
    )
  })

  it('keeps a surrogate pair whole at the cut', async () => {
    const { cutToTokens } = await withoutTokenizer('missing')
    expect(cutToTokens('a😀b', 4)).toEqual({ text: 'a', cut: true })
    expect(cutToTokens('a😀b', 5)).toEqual({ text: 'a😀', cut: true })
  })
})

describe('maxFeedbackTokens without gpt-tokenizer', () => {
  it('bounds the echoed output in the retry request within the o200k_base limit', async () => {
    const { createGate, strictOutput, TRUNCATION_MARKER } = await withoutTokenizer('missing')
    const { scripted } = await import('../../src/providers/index.ts')
    const longAnswer = `{"message": ${JSON.stringify('déjà vu, {"nested": [1, 2, 3]} '.repeat(200))}, "extra": true}`
    const provider = scripted([longAnswer, '{"message": "hi"}'])
    const Message = Type.Object({ message: Type.String() }, { additionalProperties: false })
    const gate = createGate({ providers: provider, outputSchema: Message, ...strictOutput({ maxFeedbackTokens: 300 }) })
    await gate.run({ messages: [{ role: 'user', content: 'Say hi.' }] })
    const echo = provider.requests[1]?.messages[1]?.content ?? ''
    const feedback = provider.requests[1]?.messages[2]?.content ?? ''
    expect(echo.endsWith(`\n${TRUNCATION_MARKER}`)).toBe(true)
    const body = echo.slice(0, -TRUNCATION_MARKER.length - 1)
    expect(longAnswer.startsWith(body)).toBe(true)
    // The whole tail (echo, marker and feedback) fits the bound, counted as UTF-8 bytes; the echo takes what the feedback leaves.
    expect(utf8(echo) + utf8(feedback)).toBeLessThanOrEqual(300)
    expect(utf8(echo) + utf8(feedback)).toBeGreaterThan(290)
    expect(exactTokens(echo) + exactTokens(feedback)).toBeLessThanOrEqual(300)
  })
})

describe('countFeedbackTokens and cutToTokens with gpt-tokenizer', () => {
  /** The library's tokenizer, wrapped to record the longest text it was asked to encode. */
  async function recordingTokenizer() {
    const { createRequire } = await import('node:module')
    const real = createRequire(import.meta.url)(TOKENIZER) as typeof import('gpt-tokenizer/encoding/o200k_base')
    const seen = { longest: 0 }
    vi.doMock('../../src/model/sync-require.ts', () => ({
      syncRequire: () => (specifier: string) =>
        specifier === TOKENIZER
          ? {
              encode: (text: string, options: { disallowedSpecial: Set<string> }) => {
                seen.longest = Math.max(seen.longest, text.length)
                return real.encode(text, options)
              },
              decode: real.decode,
            }
          : createRequire(import.meta.url)(specifier),
    }))
    return { seen, ...(await import('../../src/validation/index.ts')) }
  }

  it('encodes a run of one character a model repeated 60,000 times in bounded pieces (BPE is quadratic in one piece), counting it whole', async () => {
    const { seen, countFeedbackTokens, cutToTokens } = await recordingTokenizer()
    const run = 'x'.repeat(60_000)
    // Encoding the run whole here would cost the test seconds: every piece of 1,000 counts alike, and
    // each of the 59 cuts inside the run (no space to cut before) counts one token more.
    expect(countFeedbackTokens(run)).toBe(60 * exactTokens('x'.repeat(1_000)) + 59)
    const { text, cut } = cutToTokens(run, 4_000)
    expect(cut).toBe(true)
    expect(run.startsWith(text)).toBe(true)
    expect(countFeedbackTokens(text)).toBeLessThanOrEqual(4_000)
    expect(text.length).toBeGreaterThan(30_000)
    expect(seen.longest).toBeLessThanOrEqual(1_001)
  })

  it('never counts fewer tokens than o200k_base over a whole text, nor keeps more, and never cuts a surrogate pair at a piece edge', async () => {
    const { countFeedbackTokens, cutToTokens } = await recordingTokenizer()
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 900, maxLength: 2_500 }), (text) => {
        expect(countFeedbackTokens(text)).toBeGreaterThanOrEqual(exactTokens(text))
      }),
      { numRuns: 30 },
    )
    // JSON as models write it, long enough to span many pieces: what is kept is a prefix within the limit.
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json({ maxDepth: 3 }).map((j) => j.repeat(60)),
          fc.jsonValue({ maxDepth: 3 }).map((v) => (JSON.stringify(v, null, 1) ?? '').repeat(30)),
        ),
        fc.integer({ min: 1, max: 1_500 }),
        (text, limit) => {
          expect(countFeedbackTokens(text)).toBeGreaterThanOrEqual(exactTokens(text))
          const { text: kept } = cutToTokens(text, limit)
          expect(text.startsWith(kept)).toBe(true)
          expect(exactTokens(kept)).toBeLessThanOrEqual(limit)
        },
      ),
      { numRuns: 30 },
    )
    const edge = `${'a'.repeat(999)}😀${'b'.repeat(50)}`
    expect(cutToTokens(edge, countFeedbackTokens(edge) - 1).text).not.toMatch(/[\uD800-\uDFFF]$/)
  })
})
