import { describe, expect, it } from 'vitest'
import { findJsonStart } from '../../src/validation/stream/json-start.ts'

describe('findJsonStart', () => {
  it('finds an object or array after leading whitespace', () => {
    expect(findJsonStart('  \n{"a"')).toEqual({ found: 'json', offset: 3 })
    expect(findJsonStart('[1')).toEqual({ found: 'json', offset: 0 })
  })

  it('skips a markdown fence line, with or without a language', () => {
    expect(findJsonStart('```json\n{"a"')).toEqual({ found: 'json', offset: 8 })
    expect(findJsonStart(' ```\r\n [')).toEqual({ found: 'json', offset: 7 })
  })

  it('stays undecided on whitespace or a fence line not yet ended', () => {
    expect(findJsonStart('  \n')).toEqual({ found: 'undecided' })
    expect(findJsonStart('``')).toEqual({ found: 'undecided' })
    expect(findJsonStart('```js')).toEqual({ found: 'undecided' })
    expect(findJsonStart('```json\n  ')).toEqual({ found: 'undecided' })
  })

  it('finds no JSON when the answer starts with prose, a scalar or a broken fence', () => {
    expect(findJsonStart('Sure! {"a": 1}')).toEqual({ found: 'none' })
    expect(findJsonStart('"text"')).toEqual({ found: 'none' })
    expect(findJsonStart('`x` {')).toEqual({ found: 'none' })
  })
})
