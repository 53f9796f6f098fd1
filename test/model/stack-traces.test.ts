import { afterEach, describe, expect, it } from 'vitest'
import { resumeStackTraces, suspendStackTraces } from '../../src/model/stack-traces.ts'
import { JsonSyntaxFailure, parseJsonQuietly } from '../../src/validation/json/parse-json-quietly.ts'
import { ValidationFailure } from '../../src/validation/validation-failure.ts'

const original = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit') as PropertyDescriptor

afterEach(() => {
  Object.defineProperty(Error, 'stackTraceLimit', original)
})

describe('suspendStackTraces', () => {
  it('turns stack capture off and restores the previous limit', () => {
    Error.stackTraceLimit = 7
    const saved = suspendStackTraces()
    expect(Error.stackTraceLimit).toBe(0)
    resumeStackTraces(saved)
    expect(Error.stackTraceLimit).toBe(7)
  })

  it('changes nothing and throws nothing where the limit is frozen, and parsing and verdicts still work', () => {
    Object.defineProperty(Error, 'stackTraceLimit', { value: 5, writable: false, configurable: true })
    const saved = suspendStackTraces()
    expect(Error.stackTraceLimit).toBe(5)
    resumeStackTraces(saved)
    expect(Error.stackTraceLimit).toBe(5)
    expect(parseJsonQuietly('{"a": 1}')).toEqual({ a: 1 })
    expect(parseJsonQuietly('{"a": ')).toBeInstanceOf(JsonSyntaxFailure)
    const failure = new ValidationFailure({ stage: 'json-parse', message: 'not JSON' })
    expect(failure.message).toBe('not JSON')
    expect(failure).toBeInstanceOf(Error)
  })
})
