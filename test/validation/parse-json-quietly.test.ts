import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { JsonSyntaxFailure, parseJsonQuietly } from '../../src/validation/json/parse-json-quietly.ts'

function reference(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (error) {
    return { ok: false, message: (error as Error).message }
  }
}

function quietly(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const value = parseJsonQuietly(text)
  return value instanceof JsonSyntaxFailure ? { ok: false, message: (value.error as Error).message } : { ok: true, value }
}

describe('parseJsonQuietly', () => {
  it('answers what JSON.parse answers, value or error message, for any text, asked once or twice', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json(),
          fc.string(),
          fc.json().map((j) => j.slice(0, -1)),
        ),
        (text) => {
          expect(quietly(text)).toEqual(reference(text))
          // Again: the same answer.
          expect(quietly(text)).toEqual(reference(text))
        },
      ),
      { numRuns: 500 },
    )
  })

  it('restores Error.stackTraceLimit after a failure and after a success', () => {
    const before = Error.stackTraceLimit
    expect(parseJsonQuietly('{"a":')).toBeInstanceOf(JsonSyntaxFailure)
    expect(Error.stackTraceLimit).toBe(before)
    expect(parseJsonQuietly('{"a": 1}')).toEqual({ a: 1 })
    expect(Error.stackTraceLimit).toBe(before)
  })

  it('keeps nothing between calls: each failing text is parsed again, its failure a new one with the same message', () => {
    const first = parseJsonQuietly('[1, 2') as JsonSyntaxFailure
    const again = parseJsonQuietly('[1, 2') as JsonSyntaxFailure
    expect(again).toBeInstanceOf(JsonSyntaxFailure)
    expect(again).not.toBe(first)
    expect((again.error as Error).message).toBe((first.error as Error).message)
    expect(parseJsonQuietly('[1, 2]')).toEqual([1, 2])
  })
})
