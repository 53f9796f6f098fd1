import { afterEach, describe, expect, it } from 'vitest'
import { parseJsonSafe } from '../../src/validation/index.ts'

afterEach(() => {
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  expect(({} as Record<string, unknown>)['x']).toBeUndefined()
})

describe('parseJsonSafe', () => {
  it('parses valid JSON', () => {
    expect(parseJsonSafe('{"a": [1, "two", null]}')).toEqual({ ok: true, value: { a: [1, 'two', null] } })
  })

  it('reports a syntax error with its position', () => {
    const result = parseJsonSafe('{"a": 1 "b": 2}')
    expect(result).toMatchObject({ ok: false, position: 8 })
    expect(result.ok ? '' : result.message).toMatch(/^not valid JSON: Expected ',' or '}' after property value in JSON at position 8/)
  })

  it('rejects nesting deeper than 256 levels before parsing', () => {
    const text = '['.repeat(100_000) + ']'.repeat(100_000)
    expect(parseJsonSafe(text)).toEqual({
      ok: false,
      reason: 'too-deep',
      position: 256,
      message: 'JSON nesting deeper than 256 levels at position 256',
    })
  })

  it('accepts nesting of exactly maxDepth levels', () => {
    expect(parseJsonSafe('[[[1]]]', { maxDepth: 3 }).ok).toBe(true)
    expect(parseJsonSafe('[[[[1]]]]', { maxDepth: 3 }).ok).toBe(false)
  })

  it('ignores brackets inside strings when measuring depth', () => {
    expect(parseJsonSafe(JSON.stringify({ s: `${'['.repeat(1000)}\\"{` }))).toMatchObject({ ok: true })
  })

  it('rejects text longer than maxLength', () => {
    expect(parseJsonSafe(`"${'a'.repeat(5_000_000)}"`)).toMatchObject({ ok: false, reason: 'too-long' })
    expect(parseJsonSafe('[1, 2]', { maxLength: 3 })).toMatchObject({ ok: false, reason: 'too-long' })
  })

  it('rejects a __proto__ key and names its path', () => {
    const result = parseJsonSafe('{"a": [{"__proto__": {"polluted": true}}]}')
    expect(result).toMatchObject({
      ok: false,
      reason: 'forbidden-key',
      message: "forbidden key '__proto__' at 'a[0].__proto__'",
      issue: { path: 'a[0].__proto__', code: 'forbidden_key' },
    })
  })

  it('rejects a __proto__ key written with unicode escapes', () => {
    expect(parseJsonSafe('{"\\u005f_proto__": {"polluted": true}}')).toMatchObject({ ok: false, reason: 'forbidden-key' })
  })

  it('rejects constructor.prototype', () => {
    expect(parseJsonSafe('{"constructor": {"prototype": {"x": 1}}}')).toMatchObject({
      ok: false,
      reason: 'forbidden-key',
      message: "forbidden key 'constructor' holding a 'prototype' at 'constructor'",
      issue: { code: 'forbidden_key', path: 'constructor' },
    })
  })

  it('takes constructor and prototype keys that hold data, as secure-json-parse does', () => {
    expect(parseJsonSafe('{"constructor": "Ada"}')).toEqual({ ok: true, value: JSON.parse('{"constructor": "Ada"}') })
    expect(parseJsonSafe('{"a": [{"prototype": null}], "constructor": {"name": "x"}}')).toMatchObject({ ok: true })
  })

  it('parses lone surrogates and NUL characters without throwing', () => {
    expect(parseJsonSafe('"\\ud800\\u0000x"')).toEqual({ ok: true, value: '\ud800\u0000x' })
    expect(parseJsonSafe('\u0000{')).toMatchObject({ ok: false, reason: 'syntax' })
  })
})
