import type { CompiledSchema, SchemaResult } from './compiled-schema.ts'
import type { ParseSchema } from './output-schema.ts'
import { rejectedByThrow } from './schema-failure.ts'

/**
 * Adapts an object with a `parse` function: a returned value is accepted, a throw is a rejection.
 * A `parse` that returns a thenable (an async parser) answers with a `Promise` of the verdict, never
 * with the thenable as the accepted value: the caller sees `validate` answer a promise (the typed
 * `SchemaResult | Promise<SchemaResult>` of every schema) and awaits it within its deadline; a
 * rejection is a rejection like a throw.
 */
export function compileParse<T>(schema: ParseSchema<T>): CompiledSchema<T> {
  return {
    vendor: 'parse',
    jsonSchema: undefined,
    validate(value) {
      let parsed: T
      try {
        parsed = schema.parse(value)
      } catch (error) {
        return rejectedByThrow<T>(error, value)
      }
      const then = thenOf(parsed)
      if (then === undefined) return { ok: true, value: parsed }
      return new Promise<SchemaResult<T>>((resolve) => {
        const reject = (error: unknown) => resolve(rejectedByThrow<T>(error, value))
        try {
          then.call(parsed, (settled: unknown) => resolve({ ok: true, value: settled as T }), reject)
        } catch (error) {
          reject(error)
        }
      })
    },
  }
}

/** The `then` method of a thenable, `undefined` for anything else (and for a value whose `then` cannot be read). */
function thenOf(value: unknown): ((onFulfilled: (v: unknown) => void, onRejected: (e: unknown) => void) => unknown) | undefined {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined
  try {
    const then = (value as { then?: unknown }).then
    return typeof then === 'function' ? (then as never) : undefined
  } catch {
    return undefined
  }
}
