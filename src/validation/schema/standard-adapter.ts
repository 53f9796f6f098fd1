import type { JsonSchema } from '../../model/request.ts'
import type { CompiledSchema, SchemaResult } from './compiled-schema.ts'
import { rejected, rejectedByThrow } from './schema-failure.ts'
import type { StandardResult, StandardSchemaV1 } from './standard-schema.ts'
import { vendorIssues } from './vendor-issues.ts'

/**
 * Adapts a Standard Schema. Stays synchronous when the vendor answers synchronously (Zod and
 * Valibot do for schemas without async refinements).
 */
export function compileStandard<T>(schema: StandardSchemaV1<unknown, T>): CompiledSchema<T> {
  const props = schema['~standard']
  return {
    vendor: 'standard-schema',
    jsonSchema: deriveJsonSchema(props),
    validate(value) {
      let result: StandardResult<T> | Promise<StandardResult<T>>
      try {
        result = props.validate(value)
      } catch (error) {
        return rejectedByThrow<T>(error, value)
      }
      // Any thenable, not only a native Promise: the verdict is then always a Promise the caller can await.
      if (isThenable(result)) {
        return Promise.resolve(result).then(
          (settled: StandardResult<T>) => toSchemaResult(settled, value),
          (error: unknown) => rejectedByThrow<T>(error, value),
        )
      }
      return toSchemaResult(result as StandardResult<T>, value)
    },
  }
}

/**
 * The vendor's result as a verdict. A result that is no object, or whose fields or issues cannot be
 * read (a getter or a path key that throws), is a rejection like a throw, never a `TypeError` from here.
 */
function toSchemaResult<T>(result: StandardResult<T>, value: unknown): SchemaResult<T> {
  try {
    if (typeof result !== 'object' || result === null) {
      return rejectedByThrow<T>(new TypeError(`the schema answered ${result === null ? 'null' : typeof result}, not a result with a value or issues`), value)
    }
    const issues = result.issues
    if (issues === undefined) return { ok: true, value: result.value }
    return rejected(vendorIssues(issues, value), 'the value does not match the schema')
  } catch (error) {
    return rejectedByThrow<T>(error, value)
  }
}

// The Standard JSON Schema extension (`~standard.jsonSchema`) is optional and may throw for
// schemas it cannot express (transforms, custom checks): then the provider gets no schema.
function deriveJsonSchema(props: object): JsonSchema | undefined {
  try {
    const converter = (props as { jsonSchema?: { input?: (options: { target: string }) => unknown } }).jsonSchema
    const derived = converter?.input?.({ target: 'draft-2020-12' })
    return typeof derived === 'object' && derived !== null && !Array.isArray(derived) ? (derived as JsonSchema) : undefined
  } catch {
    return undefined
  }
}

function isThenable<R>(value: R | PromiseLike<R>): value is PromiseLike<R> {
  try {
    return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
  } catch {
    return false
  }
}
