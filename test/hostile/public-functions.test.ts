import { describe, expect, it } from 'vitest'
import { PACKAGE_ENTRIES } from '../support/package-entries.ts'

/** What an error thrown from inside the library (not one it means to throw) says. */
const RAW_ERROR =
  /Cannot read properties|Cannot convert a Symbol|Cannot convert object to primitive|Cannot mix BigInt|is not a function|is not iterable|Cannot destructure|Cannot convert|Cannot use 'in'|is not defined/

const HOSTILE_FIRST_ARGUMENTS: readonly unknown[] = [null, undefined, 42, NaN, -1, Symbol('hostile'), 10n, Object.create(null)]

/** Argument lists whose first argument may pass and whose second cannot: a string or object where another is expected. */
const HOSTILE_ARGUMENT_LISTS: readonly (readonly unknown[])[] = [
  ['x', null],
  ['x', 42],
  [{}, null],
  [[], null],
  [{}, 42],
  ['x', {}, null],
]

/** Whatever `call` throws or rejects with, `undefined` when it answers. */
async function failureOf(call: () => unknown): Promise<unknown> {
  try {
    const answer = call()
    if (typeof (answer as { then?: unknown } | null)?.then === 'function') await answer
    return undefined
  } catch (error) {
    return error
  }
}

/** What is wrong with `error` as the answer to a misused argument, or `undefined` when it is a typed, explained error. */
function rawness(error: unknown): string | undefined {
  if (!(error instanceof Error)) return `threw a non-Error ${String(error)}`
  const typed =
    error instanceof TypeError || error instanceof RangeError || ![Error, SyntaxError, ReferenceError].includes(error.constructor as ErrorConstructor)
  if (!typed) return `threw an untyped ${error.constructor.name}: ${error.message}`
  if (RAW_ERROR.test(error.message)) return `threw a raw ${error.constructor.name}: ${error.message}`
  return undefined
}

/** What an argument is called in a failure's line (a symbol, a bigint and a null-prototype object have no JSON). */
function shown(argument: unknown): string {
  if (typeof argument === 'object' && argument !== null && Object.getPrototypeOf(argument) === null) return 'a null-prototype object'
  if (typeof argument === 'symbol' || typeof argument === 'bigint' || argument === undefined || Number.isNaN(argument)) return String(argument)
  return JSON.stringify(argument)
}

/** Every exported function and class of every entry, called with each of `argumentLists`: one line per raw or untyped failure. */
async function rawFailures(argumentLists: readonly (readonly unknown[])[]): Promise<string[]> {
  const found: string[] = []
  const seen = new Set<unknown>()
  for (const [entry, load] of Object.entries(PACKAGE_ENTRIES)) {
    for (const [name, exported] of Object.entries(await load())) {
      if (typeof exported !== 'function' || seen.has(exported)) continue
      seen.add(exported)
      const isClass = /^class\b/.test(Function.prototype.toString.call(exported))
      for (const args of argumentLists) {
        const error = await failureOf(() =>
          isClass ? new (exported as new (...a: unknown[]) => unknown)(...args) : (exported as (...a: unknown[]) => unknown)(...args),
        )
        // A path that names no file is the system's answer (ENOENT), not a misuse.
        if (error === undefined || (error as { code?: unknown }).code === 'ENOENT') continue
        const problem = rawness(error)
        if (problem !== undefined) found.push(`${entry}:${name}(${args.map(shown).join(', ')}) ${problem.slice(0, 160)}`)
      }
    }
  }
  return found
}

describe('public functions', () => {
  it('answer null, undefined, a number, a symbol, a bigint or a null-prototype object as their first argument with a typed, explained error, never a raw one from inside', async () => {
    expect(await rawFailures(HOSTILE_FIRST_ARGUMENTS.map((argument) => [argument]))).toEqual([])
  })

  it('answer a string, object or array where another is expected, and a bad second argument, with a typed, explained error', async () => {
    expect(await rawFailures(HOSTILE_ARGUMENT_LISTS)).toEqual([])
  })

  it('type guards (is*) answer false, never throw, for a proxy whose every trap throws and for a revoked proxy', async () => {
    const trap = () => {
      throw new Error('trap')
    }
    const throwing = new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, getPrototypeOf: trap })
    const revocable = Proxy.revocable({}, {})
    revocable.revoke()
    const found: string[] = []
    for (const [entry, load] of Object.entries(PACKAGE_ENTRIES)) {
      for (const [name, exported] of Object.entries(await load())) {
        if (typeof exported !== 'function' || !/^is[A-Z]/.test(name)) continue
        for (const [shown, value] of [
          ['a throwing proxy', throwing],
          ['a revoked proxy', revocable.proxy],
        ] as const) {
          let answer: unknown
          try {
            answer = (exported as (value: unknown) => unknown)(value)
          } catch (error) {
            answer = `threw ${String(error)}`
          }
          if (answer !== false) found.push(`${entry}:${name}(${shown}) answered ${String(answer)}`)
        }
      }
    }
    expect(found).toEqual([])
  })
})
