/**
 * Reading anything thrown, safely. JavaScript lets code throw any value: `null`, a Symbol, a
 * BigInt, an object without a prototype (which `String()` cannot convert), an error whose `message`
 * getter throws, a Proxy that throws on every trap. Error handling that reads such a value with
 * `error.message` or `String(error)` crashes in the middle of handling the first error; these
 * helpers never throw.
 */

/** The message of anything thrown: an error's `message`, else its string form, else a description. */
export function messageOf(thrown: unknown): string {
  switch (typeof thrown) {
    case 'string':
      return thrown
    case 'symbol':
      return `Symbol(${safely(() => thrown.description) ?? ''})`
    case 'object':
    case 'function': {
      if (thrown === null) return 'null'
      const message = safely(() => (thrown as { message?: unknown }).message)
      if (typeof message === 'string') return message
      const text = safely(() => String(thrown))
      return typeof text === 'string' ? text : `an unreadable ${typeof thrown}`
    }
    default:
      // number, bigint, boolean, undefined: String() never throws for them.
      return String(thrown)
  }
}

/**
 * The `name` of a thrown `Error` (`TypeError`, `ProviderError`, ...), `undefined` for anything that
 * is not an Error or cannot be read.
 */
export function errorName(thrown: unknown): string | undefined {
  // The reads that capture `thrown` in a function of their own: no context made for the common `undefined` (~40 B per plain run).
  return typeof thrown !== 'object' || thrown === null ? undefined : objectErrorName(thrown)
}

function objectErrorName(thrown: object): string | undefined {
  if (safely(() => thrown instanceof Error) !== true) return undefined
  const name = safely(() => (thrown as Error).name)
  return typeof name === 'string' ? name : 'Error'
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}
