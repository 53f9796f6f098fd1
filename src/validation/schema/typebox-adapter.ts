import type { TSchema } from 'typebox'
import type { JsonSchema } from '../../model/request.ts'
import { syncRequire } from '../../model/sync-require.ts'
import type { CompiledSchema, SchemaResult } from './compiled-schema.ts'
import { schemaPatternError } from './schema-patterns.ts'
import { rejected, rejectedByThrow } from './schema-failure.ts'
import { typeboxIssues, type TypeBoxError } from './typebox-issues.ts'

type Compiler = typeof import('typebox/compile')
type Check<T> = ((value: unknown) => SchemaResult<T>) & { readonly test: (value: unknown) => boolean }

// TypeBox's compiler is ~680 modules: it loads on the first TypeBox or JSON Schema compiled, never on
// import, so Zod, Valibot and `{parse}` users never pay for it. Where the runtime can require an ES
// module synchronously (Node >= 22.12, Bun, Deno) it loads right there and `validate` stays synchronous.
// Elsewhere (workerd, browser bundles) `import()` starts instead, and `validate` answers with a promise
// until it lands (the contract allows it), then synchronously with no extra await on the hot path.
let compiler: Compiler | undefined
let loading: Promise<Compiler> | undefined
let triedRequire = false

function compilerNow(): Compiler | undefined {
  if (compiler !== undefined || triedRequire) return compiler
  triedRequire = true
  const require = syncRequire()
  try {
    if (require !== undefined) compiler = require('typebox/compile') as Compiler
  } catch {
    // Node 22 before 22.12 cannot require an ES module: the `import()` path below serves it.
  }
  return compiler
}

function loadCompiler(): Promise<Compiler> {
  return (loading ??= import('typebox/compile').then((loaded) => (compiler = loaded)))
}

/**
 * Compiles a TypeBox schema or a raw JSON Schema once. `validate` runs the compiled `Check` first
 * and builds errors only for a rejected value, so accepting is as cheap as TypeBox allows.
 *
 * Where the compiler cannot load synchronously, `validate` returns a promise until it has loaded;
 * every call after that is synchronous.
 *
 * @throws Error when a `pattern` or a `patternProperties` key is not a valid regular expression, or
 * (once the compiler is loaded) when TypeBox cannot compile the schema.
 */
export function compileTypeBox<T>(schema: object, vendor: 'typebox' | 'json-schema'): CompiledSchema<T> {
  const what = vendor === 'typebox' ? 'TypeBox schema' : 'JSON Schema'
  // TypeBox's usual compile errors are bad regexes (and unresolvable `$ref`s, which `assertJsonSchemaShape`
  // checks for raw JSON Schema): reported now, even when compiling itself waits for the compiler.
  const badPattern = schemaPatternError(schema)
  if (badPattern !== undefined) throw compileError(what, badPattern)
  const ready = compilerNow()
  let check: Check<T> | undefined = ready === undefined ? undefined : checkOf<T>(ready, schema, what)
  let pending: Promise<Check<T>> | undefined
  if (check === undefined) {
    pending = loadCompiler().then((loaded) => (check = checkOf<T>(loaded, schema, what)))
    // Nobody may validate before a compile error surfaces; whoever does sees the rejection.
    pending.catch(() => undefined)
  }
  return {
    vendor,
    // TypeBox schemas are JSON Schema; `~kind` is non-enumerable, so it never reaches the wire.
    jsonSchema: schema as JsonSchema,
    validate(value) {
      if (check !== undefined) return check(value)
      return (pending as Promise<Check<T>>).then((ready) => ready(value))
    },
    test(value) {
      return check !== undefined && check.test(value)
    },
  }
}

function checkOf<T>(loaded: Compiler, schema: object, what: string): Check<T> {
  let validator: ReturnType<Compiler['Compile']>
  try {
    validator = loaded.Compile(schema as TSchema)
  } catch (error) {
    throw compileError(what, error)
  }
  const validate = (value: unknown): SchemaResult<T> => {
    try {
      if (validator.Check(value)) return { ok: true, value: value as T }
      const errors = validator.Errors(value) as unknown as readonly TypeBoxError[]
      return rejected(typeboxIssues(errors, value), 'the value does not match the schema')
    } catch (error) {
      // A schema TypeBox cannot evaluate for this value is reported, not thrown.
      return rejectedByThrow(error, value)
    }
  }
  const test = (value: unknown): boolean => {
    try {
      return validator.Check(value)
    } catch {
      return false
    }
  }
  return Object.assign(validate, { test })
}

function compileError(what: string, cause: unknown): Error {
  const reason = cause instanceof Error ? cause.message : String(cause)
  return new Error(`compileSchema could not compile the ${what}: ${reason}`, { cause })
}
