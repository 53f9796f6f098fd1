import { describe, expect, it } from 'vitest'
import { isValidationFailure, ValidationFailure, type ValidationIssue } from '../../src/validation/index.ts'

const failure = () =>
  new ValidationFailure({
    stage: 'schema-validate',
    message: "schema-validate: 'amount': required field is missing",
    issues: [{ path: 'amount', segments: ['amount'], code: 'missing_required', message: 'must have required properties amount' }],
    rawOutput: '{}',
    parsed: {},
  })

describe('ValidationFailure', () => {
  it('is an Error named ValidationFailure, as agentfootprint documents its sentinel class', () => {
    const f = failure()
    expect(f).toBeInstanceOf(Error)
    expect(f.name).toBe('ValidationFailure')
    expect(f.message).toBe("schema-validate: 'amount': required field is missing")
    expect(typeof f.stack).toBe('string')
    expect(() => {
      throw f
    }).toThrow(ValidationFailure)
  })

  it('refuses, naming what it expects, an init that is no { stage, message }', () => {
    const make = (init: unknown) => () => new ValidationFailure(init as never)
    expect(make(null)).toThrow(
      new TypeError("ValidationFailure: expected { stage: 'json-parse' | 'schema-validate' | 'tool-args', message: string, ... }, got null"),
    )
    expect(make(undefined)).toThrow(/got undefined$/)
    expect(make({ stage: 'parse', message: 'x' })).toThrow(/got stage "parse" and message string$/)
    expect(make({ stage: 'json-parse', message: 5 })).toThrow(/got stage "json-parse" and message number$/)
    expect(make({ stage: 'json-parse', message: 'x' })).not.toThrow()
  })

  it('keeps its fields and its brand check', () => {
    const f = failure()
    expect(f).toMatchObject({ stage: 'schema-validate', path: 'amount', rawOutput: '{}', parseError: undefined, parsed: {}, truncated: false })
    expect(f.issues).toHaveLength(1)
    expect(isValidationFailure(f)).toBe(true)
    expect(isValidationFailure(new Error('x'))).toBe(false)
  })

  it('keeps its message when serialised or spread, as loggers do', () => {
    const f = failure()
    expect(JSON.parse(JSON.stringify(f)).message).toBe(f.message)
    expect({ ...f }.message).toBe(f.message)
    expect(f).toBeInstanceOf(Error)
    expect(typeof f.stack).toBe('string')
  })

  it('signs its full issue set: equal for the same issues, different for any other', () => {
    const same = failure()
    const other = new ValidationFailure({
      stage: 'schema-validate',
      message: same.message,
      issues: [{ ...(same.issues[0] as ValidationIssue), path: 'amount2' }],
    })
    expect(failure().signature).toBe(same.signature)
    expect(other.signature).not.toBe(same.signature)
    expect(other.message).toBe(same.message)
  })
})
