/** A Proxy whose every trap throws: reading, `instanceof`, `String()`, `in`, anything. */
export function hostileProxy(): object {
  const trap = (): never => {
    throw new Error('trap')
  }
  return new Proxy(
    {},
    {
      get: trap,
      has: trap,
      set: trap,
      ownKeys: trap,
      getPrototypeOf: trap,
      getOwnPropertyDescriptor: trap,
      defineProperty: trap,
      deleteProperty: trap,
      apply: trap,
      construct: trap,
      isExtensible: trap,
      preventExtensions: trap,
      setPrototypeOf: trap,
    },
  )
}

/** An Error whose `message` and `name` getters throw. */
export function errorWithThrowingGetters(): Error {
  const error = new Error('hidden')
  Object.defineProperty(error, 'message', {
    get() {
      throw new Error('message getter')
    },
  })
  Object.defineProperty(error, 'name', {
    get() {
      throw new Error('name getter')
    },
  })
  return error
}

/** An object without prototype and without message: `String()` of it throws. */
export function bareObject(): object {
  return Object.create(null) as object
}

/** An error whose cause is itself. */
export function circularError(): Error {
  const error = new Error('loop')
  ;(error as { cause?: unknown }).cause = error
  return error
}

/**
 * Values JavaScript lets code throw, named, with the message the library reads from each. Every
 * piece of error handling must turn each into a typed failure without throwing itself.
 */
export const THROWN_VALUES: readonly (readonly [name: string, make: () => unknown, message: string | RegExp])[] = [
  ['an object without prototype', bareObject, 'an unreadable object'],
  ['an object without prototype holding a message', () => Object.assign(Object.create(null) as object, { message: 'bare message' }), 'bare message'],
  ['an Error whose getters throw', errorWithThrowingGetters, 'an unreadable object'],
  ['a Proxy that throws on every trap', hostileProxy, 'an unreadable object'],
  ['a Symbol', () => Symbol('boom'), 'Symbol(boom)'],
  ['a BigInt', () => 10n ** 30n, '1000000000000000000000000000000'],
  ['null', () => null, 'null'],
  ['undefined', () => undefined, 'undefined'],
  ['a number', () => 42, '42'],
  ['a string', () => 'plain string', 'plain string'],
  ['a boolean', () => false, 'false'],
  [
    'an object whose toString throws',
    () => ({
      toString: () => {
        throw new Error('no')
      },
    }),
    'an unreadable object',
  ],
  ['a frozen Error', () => Object.freeze(new Error('frozen')), 'frozen'],
  ['an Error caused by itself', circularError, 'loop'],
  ['a function', () => function thrownFunction() {}, /thrownFunction/],
]
