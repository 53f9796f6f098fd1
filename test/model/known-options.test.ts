import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { refuseUnknownOptions, unknownOption } from '../../src/model/known-options.ts'

const KNOWN = ['path', 'redact', 'append', 'maxChars', 'tracerProvider'] as const

describe('unknownOption', () => {
  it('answers undefined when every key is an option', () => {
    expect(unknownOption({}, KNOWN)).toBeUndefined()
    expect(unknownOption({ path: 'x', redact: [], maxChars: undefined }, KNOWN)).toBeUndefined()
  })

  it('names the first unknown key and lists the options', () => {
    expect(unknownOption({ path: 'x', colour: 1, size: 2 }, KNOWN)).toBe(
      'unknown option "colour"; the options are path, redact, append, maxChars, tracerProvider',
    )
  })

  it.each([
    ['another case', 'tracerprovider', 'tracerProvider'],
    ['two letters swapped', 'redcat', 'redact'],
    ['a letter missing', 'apend', 'append'],
    ['two letters more', 'maxCharsXY', 'maxChars'],
    ['its singular', 'maxChar', 'maxChars'],
  ])('suggests the option a key is near: %s', (_, key, near) => {
    expect(unknownOption({ [key]: 1 }, KNOWN)).toBe(`unknown option "${key}" (did you mean "${near}"?); the options are ${KNOWN.join(', ')}`)
  })

  it.each([
    ['maxToolRetry', 'maxToolRetries'],
    ['toolGuard', 'toolGuards'],
    ['contentGuard', 'contentGuards'],
    ['trustedServer', 'trustedServers'],
  ])('suggests the plural option for its singular, however far in edits: %s', (key, near) => {
    const known = ['maxToolRetries', 'toolGuards', 'contentGuards', 'trustedServers', 'name']
    expect(unknownOption({ [key]: 1 }, known)).toContain(`(did you mean "${near}"?)`)
  })

  it('suggests the plural option of a singular key ending in y, three edits away (tool maxRetry)', () => {
    expect(unknownOption({ maxRetry: 2 }, ['name', 'maxRetries'])).toBe(
      'unknown option "maxRetry" (did you mean "maxRetries"?); the options are name, maxRetries',
    )
    expect(unknownOption({ maxToolRetry: 2 }, ['maxToolRetries', 'toolGuards'])).toMatch(/did you mean "maxToolRetries"/)
  })

  it('suggests nothing for a key three edits from every option', () => {
    expect(unknownOption({ pathXYZ: 1 }, KNOWN)).not.toContain('did you mean')
  })

  it('refuses keys the prototype supplies, which are no options', () => {
    const proto = JSON.parse('{"__proto__": {}}') as object
    expect(unknownOption(proto, KNOWN)).toMatch(/^unknown option "__proto__"/)
    expect(unknownOption({ toString: 1 }, KNOWN)).toMatch(/^unknown option "toString"/)
    expect(unknownOption({ constructor: 1 }, KNOWN)).toMatch(/^unknown option "constructor"/)
  })

  it('answers one bounded line for any unknown key, suggesting only an option', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 5_000 }), (key) => {
        fc.pre(!(KNOWN as readonly string[]).includes(key))
        const problem = unknownOption({ [key]: 1 }, KNOWN) as string
        expect(problem).toMatch(/^unknown option "/)
        expect(problem).not.toMatch(/[\n\r]/)
        expect(problem.length).toBeLessThan(500)
        const near = /did you mean "([^"]*)"/.exec(problem)?.[1]
        if (near !== undefined) expect(KNOWN).toContain(near)
      }),
    )
  })
})

describe('refuseUnknownOptions', () => {
  it('throws a TypeError naming the function and the key', () => {
    expect(() => refuseUnknownOptions({ redcat: [] }, KNOWN, 'recordTrace')).toThrow(
      new TypeError(`recordTrace: unknown option "redcat" (did you mean "redact"?); the options are ${KNOWN.join(', ')}`),
    )
  })

  it('returns when every key is an option', () => {
    expect(refuseUnknownOptions({ path: 'x' }, KNOWN, 'recordTrace')).toBeUndefined()
  })
})
