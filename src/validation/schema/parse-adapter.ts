import type { CompiledSchema } from './compiled-schema.ts'
import type { ParseSchema } from './output-schema.ts'
import { rejectedByThrow } from './schema-failure.ts'

/** Adapts an object with a `parse` function: a returned value is accepted, a throw is a rejection. */
export function compileParse<T>(schema: ParseSchema<T>): CompiledSchema<T> {
  return {
    vendor: 'parse',
    jsonSchema: undefined,
    validate(value) {
      try {
        return { ok: true, value: schema.parse(value) }
      } catch (error) {
        return rejectedByThrow<T>(error, value)
      }
    },
  }
}
