import { describe, expect, it } from 'vitest'
import { brand, hasBrand } from '../../src/model/brand.ts'
import { isProviderError, ProviderError } from '../../src/model/provider-error.ts'
import { isStepConfigError, StepConfigError } from '../../src/rules/step-config-error.ts'
import { isRedisStoreError, RedisStoreError } from '../../src/store/redis/redis-store-error.ts'
import { isValidationFailure, ValidationFailure } from '../../src/validation/validation-failure.ts'

const KEY = Symbol.for('reliability-gate.Test')

describe('brand', () => {
  it('returns the object it marks', () => {
    const target = { a: 1 }
    expect(brand(target, KEY)).toBe(target)
  })

  it('marks without changing what the object enumerates or serialises', () => {
    const target = brand({ a: 1 }, KEY)
    expect(Object.getOwnPropertySymbols(target).filter((s) => Object.prototype.propertyIsEnumerable.call(target, s))).toEqual([])
    expect(JSON.stringify(target)).toBe('{"a":1}')
  })

  it('marks read-only', () => {
    const target = brand({}, KEY)
    expect(() => Object.assign(target, { [KEY]: false })).toThrow(TypeError)
  })
})

describe('hasBrand', () => {
  it('recognises an object or a function branded by brand()', () => {
    expect(hasBrand(brand({}, KEY), KEY)).toBe(true)
    expect(
      hasBrand(
        brand(() => 1, KEY),
        KEY,
      ),
    ).toBe(true)
  })

  it('recognises a brand made by another copy of the package through the symbol registry', () => {
    expect(hasBrand({ [Symbol.for('reliability-gate.Test')]: true }, KEY)).toBe(true)
  })

  it('rejects primitives, null, other brands and a brand that is not exactly true', () => {
    for (const value of [
      null,
      undefined,
      0,
      'x',
      true,
      {},
      { [Symbol.for('reliability-gate.Other')]: true },
      { [KEY]: 'yes' },
      { [Symbol('reliability-gate.Test')]: true },
    ]) {
      expect(hasBrand(value, KEY)).toBe(false)
    }
  })
})

describe('error brand guards', () => {
  it.each([
    ['ProviderError', isProviderError, () => new ProviderError('down', { kind: 'http-5xx' })],
    ['StepConfigError', isStepConfigError, () => new StepConfigError([])],
    ['RedisStoreError', isRedisStoreError, () => new RedisStoreError('get', 'k', new Error('x'))],
    ['ValidationFailure', isValidationFailure, () => new ValidationFailure({ stage: 'json-parse', message: 'm' })],
  ] as const)('recognise a %s, its copy from another realm, and nothing else', (name, guard, make) => {
    expect(guard(make())).toBe(true)
    expect(guard({ [Symbol.for(`reliability-gate.${name}`)]: true })).toBe(true)
    expect(guard(new Error(name))).toBe(false)
    expect(guard({ name })).toBe(false)
  })
})
