import { syncRequire } from '../../model/sync-require.ts'
import type { FormatModule } from './bounded-format.ts'
import type { TypeBoxError } from './typebox-issues.ts'
import type { HashingModule } from './unique-items-check.ts'
import { loadRe2, re2Now, type Re2Module } from './regex/re2-engine.ts'

/** The part of TypeBox's compiler used here. */
export interface CompilerModule {
  Compile(context: Record<string, unknown>, schema: unknown): Validator
}

/** A TypeBox validator. */
export interface Validator {
  Check(value: unknown): boolean
  Errors(value: unknown): readonly unknown[]
  Context(): unknown
  Type(): unknown
}

/** TypeBox's interpretive check and error walk (`Errors` is what `Validator.Errors` runs after checking the value once more). */
interface ValueModule {
  Check(context: unknown, type: unknown, value: unknown): boolean
  Errors(context: unknown, type: unknown, value: unknown): readonly unknown[]
}

interface SystemModule {
  readonly Settings: { Get(): { maxErrors: number; readonly exactOptionalPropertyTypes?: boolean } }
  /** TypeBox's error messages (the locale function `Errors` words its errors with). */
  readonly Locale: { Get(): (error: Omit<TypeBoxError, 'message'>) => string }
  /** TypeBox's structural hash (what its `uniqueItems` compares items by). */
  readonly Hashing: HashingModule
}

interface SchemaModule {
  readonly Meta: Readonly<Record<string, object>>
}

/** Everything compiling one schema needs, loaded. */
export interface Engines {
  readonly compiler: CompilerModule
  readonly system: SystemModule
  readonly value: ValueModule
  /** TypeBox's format registry, which the costly formats are tested with (see `BoundedFormatCheck`). */
  readonly format: FormatModule | undefined
  readonly re2: Re2Module | undefined
  readonly meta: Readonly<Record<string, object>> | undefined
}

/** What a schema needs besides the compiler (see `scanSchema`). */
export interface EngineNeeds {
  readonly re2: boolean
  readonly meta: boolean
  /** It asserts a costly format (see `FORMAT_MAX_LENGTH`): TypeBox's format registry is needed. */
  readonly format: boolean
}

// TypeBox's compiler is ~680 modules: it loads on the first TypeBox or JSON Schema compiled, never on
// import, so Zod, Valibot and `{parse}` users never pay for it; RE2 and the meta-schemas load only for
// a schema that needs them. Where the runtime can require an ES module synchronously (Node >= 22.12,
// Bun, Deno) they load right there and `validate` stays synchronous. Elsewhere (workerd, browser
// bundles) `import()` starts instead, and `validate` answers with a promise until they land.
let core: { compiler: CompilerModule; system: SystemModule; value: ValueModule } | undefined
let format: FormatModule | undefined
let meta: Readonly<Record<string, object>> | undefined
let triedRequire = false

/** The engines, when loaded or loadable synchronously; `undefined` otherwise. */
export function enginesNow(needs: EngineNeeds): Engines | undefined {
  if (core === undefined && !triedRequire) {
    triedRequire = true
    const require = syncRequire()
    try {
      if (require !== undefined) {
        core = {
          compiler: require('typebox/compile') as CompilerModule,
          system: require('typebox/system') as SystemModule,
          value: require('typebox/value') as ValueModule,
        }
      }
    } catch {
      // Node 22 before 22.12 cannot require an ES module: the `import()` path below serves it.
    }
  }
  if (core === undefined) return undefined
  const re2 = needs.re2 ? re2Now() : undefined
  if (needs.re2 && re2 === undefined) return undefined
  if (needs.meta && meta === undefined) {
    const require = syncRequire()
    try {
      if (require !== undefined) meta = (require('typebox/schema') as SchemaModule).Meta
    } catch {
      return undefined
    }
    if (meta === undefined) return undefined
  }
  if (needs.format && format === undefined) {
    const require = syncRequire()
    try {
      if (require !== undefined) format = require('typebox/format') as FormatModule
    } catch {
      return undefined
    }
    if (format === undefined) return undefined
  }
  return { ...core, re2, meta: needs.meta ? meta : undefined, format: needs.format ? format : undefined }
}

/** Loads the engines asynchronously. */
export async function loadEngines(needs: EngineNeeds): Promise<Engines> {
  const [compiler, system, value, re2, schema, registry] = await Promise.all([
    import('typebox/compile') as Promise<unknown> as Promise<CompilerModule>,
    import('typebox/system') as Promise<unknown> as Promise<SystemModule>,
    import('typebox/value') as Promise<unknown> as Promise<ValueModule>,
    needs.re2 ? loadRe2() : undefined,
    needs.meta ? (import('typebox/schema') as Promise<unknown> as Promise<SchemaModule>) : undefined,
    needs.format ? (import('typebox/format') as Promise<unknown> as Promise<FormatModule>) : undefined,
  ])
  core ??= { compiler, system, value }
  if (schema !== undefined) meta ??= schema.Meta
  if (registry !== undefined) format ??= registry
  return { ...core, re2, meta: needs.meta ? meta : undefined, format: needs.format ? format : undefined }
}

/** Runs `run` with TypeBox's process-wide error cap raised to `max`, restored after (synchronous, so nothing else sees it). */
export function withMaxErrors<R>(engines: Engines, max: number, run: () => R): R {
  const settings = engines.system.Settings.Get()
  const saved = settings.maxErrors
  settings.maxErrors = max
  try {
    return run()
  } finally {
    settings.maxErrors = saved
  }
}
