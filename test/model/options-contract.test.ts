import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_TIMER_MS, option, optionsContract } from '../../src/model/options-contract.ts'

interface Example {
  readonly keyPrefix?: string
  readonly timeoutMs?: number
  readonly mode?: 'a' | 'b'
  readonly window?: { readonly maxMessages?: number }
}

const WINDOW = optionsContract<NonNullable<Example['window']>>('example: window', { maxMessages: option.integer(1) })
const EXAMPLE = optionsContract<Example>('example', {
  keyPrefix: option.nonEmptyString(),
  timeoutMs: option.duration(),
  mode: option.oneOf('a', 'b'),
  window: option.nested(WINDOW),
})

describe('optionsContract', () => {
  it('takes undefined as no options and answers a valid object as a copy of what it checked', () => {
    expect(EXAMPLE.check(undefined)).toEqual({})
    const given = { keyPrefix: 'tenant-a:', timeoutMs: 5_000, mode: 'b' as const, window: { maxMessages: 3 } }
    const checked = EXAMPLE.check(given)
    expect(checked).toEqual(given)
    expect(checked).not.toBe(given)
    expect(checked.window).toEqual(given.window)
  })

  it('answers a nested object as checked, each of its options read once: its getter cannot answer another value later', () => {
    let reads = 0
    const given = {
      window: {
        get maxMessages(): number {
          reads++
          return reads === 1 ? 3 : Number.NaN
        },
      },
    }
    const checked = EXAMPLE.check(given)
    expect(checked.window?.maxMessages).toBe(3)
    expect(checked.window?.maxMessages).toBe(3)
    expect(reads).toBe(1)
    expect(checked.window).not.toBe(given.window)
  })

  it('answers a nested object checked inside a check of its own as checked too', () => {
    const EITHER = optionsContract<{ readonly window?: number | { readonly maxMessages?: number } }>('either', {
      window: (value) => (typeof value === 'number' ? option.integer(1)(value) : option.nested(WINDOW)(value)),
    })
    let reads = 0
    const window = {
      get maxMessages(): number {
        reads++
        return reads === 1 ? 3 : -1
      },
    }
    expect(EITHER.check({ window }).window).toEqual({ maxMessages: 3 })
    expect(EITHER.check({ window: 4 }).window).toBe(4)
  })

  it('answers the values it checked, each option read once: a getter answering another value on a second read changes nothing', () => {
    let reads = 0
    const given = {
      keyPrefix: 'tenant-a:',
      get timeoutMs(): number {
        reads++
        return reads === 1 ? 5_000 : 2 ** 31
      },
    }
    const checked = EXAMPLE.check(given)
    expect(checked.timeoutMs).toBe(5_000)
    expect(checked.timeoutMs).toBe(5_000)
    expect(reads).toBe(1)
    expect(Object.getOwnPropertyDescriptor(checked, 'timeoutMs')).toMatchObject({ value: 5_000, writable: true })
  })

  it('answers an options object whose options are inherited getters (a class instance) as plain data', () => {
    class Settings {
      get keyPrefix(): string {
        return 'tenant-b:'
      }
    }
    expect(EXAMPLE.check(new Settings() as Example)).toEqual({ keyPrefix: 'tenant-b:' })
  })

  it('refuses a misspelt key with "did you mean" from its own keys, naming the entry', () => {
    expect(() => EXAMPLE.check({ keyprefix: 'x' } as Example)).toThrow(
      new TypeError('example: unknown option "keyprefix" (did you mean "keyPrefix"?); the options are keyPrefix, timeoutMs, mode, window'),
    )
  })

  it('refuses a misspelt key inside a nested object, naming the nested entry', () => {
    expect(() => EXAMPLE.check({ window: { maxMesages: 3 } } as Example)).toThrow(
      /example: window: unknown option "maxMesages" \(did you mean "maxMessages"\?\)/,
    )
  })

  it('refuses what is not a plain object', () => {
    for (const given of [null, 3, 'x', [], true]) expect(() => EXAMPLE.check(given as unknown as Example)).toThrow(TypeError)
  })

  it('accepts every whole duration from 1 ms to 2^31 - 1 ms', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: MAX_TIMER_MS }), (ms) => EXAMPLE.check({ timeoutMs: ms }).timeoutMs === ms))
  })

  it('refuses a duration a timer cannot hold, a fraction, a non-finite or a string', () => {
    for (const ms of [0, -1, 2 ** 31, 2 ** 53, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '100']) {
      expect(() => EXAMPLE.check({ timeoutMs: ms as number })).toThrow(/example: timeoutMs must be a whole number of milliseconds from 1 to 2147483647/)
    }
  })

  it('names the allowed values of an enum', () => {
    expect(() => EXAMPLE.check({ mode: 'c' as 'a' })).toThrow(new TypeError('example: mode must be one of "a", "b", got "c"'))
  })

  it('refuses a number where a string, a function or an object belongs with a TypeError, a number out of its range with a RangeError', () => {
    const contract = optionsContract<{ name?: string; logger?: unknown; store?: unknown; share?: number }>('typed', {
      name: option.nonEmptyString(),
      logger: option.function(),
      store: option.object(),
      share: option.where('a share from 0 to 1', (v) => typeof v === 'number' && v >= 0 && v <= 1),
    })
    expect(() => contract.check({ name: 7 as never })).toThrow(new TypeError('typed: name must be a non-empty string, got 7'))
    expect(() => contract.check({ logger: 5 })).toThrow(TypeError)
    expect(() => contract.check({ store: 0 })).toThrow(TypeError)
    expect(() => contract.check({ share: 2 })).toThrow(RangeError)
    expect(() => EXAMPLE.check({ timeoutMs: '100' as never })).toThrow(RangeError)
  })

  it('refuses an empty string where a name is needed', () => {
    expect(() => EXAMPLE.check({ keyPrefix: '' })).toThrow(/keyPrefix must be a non-empty string/)
  })

  it('never throws anything but a TypeError or RangeError, whatever the input', () => {
    fc.assert(
      fc.property(fc.anything(), (given) => {
        try {
          EXAMPLE.check(given as Example)
        } catch (error) {
          return error instanceof TypeError || error instanceof RangeError
        }
        return true
      }),
    )
  })
})
