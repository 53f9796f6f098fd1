import type { TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import type { JsonSchema } from '../../model/request.ts'
import type { CompiledSchema } from './compiled-schema.ts'
import { rejected, rejectedByThrow } from './schema-failure.ts'
import { typeboxIssues, type TypeBoxError } from './typebox-issues.ts'

/**
 * Compiles a TypeBox schema or a raw JSON Schema once. `validate` runs the compiled `Check` first
 * and builds errors only for a rejected value, so accepting is as cheap as TypeBox allows.
 */
export function compileTypeBox<T>(schema: object, vendor: 'typebox' | 'json-schema'): CompiledSchema<T> {
  let validator: ReturnType<typeof Compile>
  try {
    validator = Compile(schema as TSchema)
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new Error(`compileSchema could not compile the ${vendor === 'typebox' ? 'TypeBox schema' : 'JSON Schema'}: ${reason}`, { cause: error })
  }
  return {
    vendor,
    // TypeBox schemas are JSON Schema; `~kind` is non-enumerable, so it never reaches the wire.
    jsonSchema: schema as JsonSchema,
    validate(value) {
      try {
        if (validator.Check(value)) return { ok: true, value: value as T }
        const errors = validator.Errors(value) as unknown as readonly TypeBoxError[]
        return rejected(typeboxIssues(errors, value), 'the value does not match the schema')
      } catch (error) {
        // A schema TypeBox cannot evaluate for this value is reported, not thrown.
        return rejectedByThrow(error, value)
      }
    },
  }
}
