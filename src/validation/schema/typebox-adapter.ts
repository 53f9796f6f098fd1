import type { JsonSchema } from '../../model/request.ts'
import type { CompiledSchema, SchemaResult } from './compiled-schema.ts'
import type { BoundedFormatCheck } from './bounded-format.ts'
import type { UniqueItemsCheck } from './unique-items-check.ts'
import { PatternPropertiesCheck } from './pattern-properties.ts'
import { prepareSchema, type FormatMode } from './prepare-schema.ts'
import { closePatternBudget, openPatternBudget, PATTERN_BUDGET } from './regex/pattern-budget.ts'
import { scanSchema } from './schema-patterns.ts'
import { assertRefsWork } from './schema-refs.ts'
import { rejected, rejectedByThrow } from './schema-failure.ts'
import { MAX_COLLECTED_ISSUES } from './make-issue.ts'
import { canonicalUri, nextUri, ROOT_URI } from './schema-uri.ts'
import { enginesNow, loadEngines, withMaxErrors, type EngineNeeds, type Engines, type Validator } from './typebox-engines.ts'
import { typeboxIssues, type TypeBoxError } from './typebox-issues.ts'
import { pointerToSegments, valueAt } from './path.ts'
import { objectErrorWalk } from './object-errors.ts'
import { declaredKeysOnly } from './declared-keys-only.ts'
import { schemaSnapshot } from './schema-snapshot.ts'
import { interpretedCompiler } from './interpreted-compiler.ts'

type Check<T> = ((value: unknown) => SchemaResult<T>) & { readonly test: (value: unknown) => boolean }

/** One schema as {@link compileTypeBox} hands it to the engines, once they are loaded. */
interface SchemaToCheck {
  readonly schema: object
  /** The documents it may `$ref`, by URI. */
  readonly registry: Readonly<Record<string, object | boolean>>
  readonly formats: FormatMode
  /** It holds regular expressions: each check runs within a pattern budget. */
  readonly patterns: boolean
  /** What it is called in a compile error (`TypeBox schema`, `JSON Schema`). */
  readonly what: string
}

/**
 * Errors TypeBox collects for one rejected value (its own default stops at 8, which would lose
 * issues and make different answers look alike); the feedback lists the first ones, then "and N more".
 */
export const MAX_COLLECTED_ERRORS = MAX_COLLECTED_ISSUES

/** Schemas a document may `$ref` by URI, keyed by their `$id` (or by the URI they are fetched from). */
export type SchemaRegistry = Readonly<Record<string, object | boolean>> | readonly object[]

/** How a TypeBox or JSON Schema document is compiled. */
export interface TypeBoxCompileOptions {
  readonly registry?: SchemaRegistry | undefined
  readonly formats?: FormatMode | undefined
  /** `false`: check by walking the schema (TypeBox's `typebox/value`), never generating code from it. */
  readonly evaluate?: boolean | undefined
}

/**
 * Compiles a TypeBox schema or a raw JSON Schema once. `validate` runs the compiled `Check` first
 * and builds errors only for a rejected value, so accepting is as cheap as TypeBox allows.
 * Regular expressions (`pattern`, `patternProperties`) run on RE2 in linear time, within a budget of
 * characters per validation (see `prepareSchema`, `PATTERN_BUDGET`); every issue is collected (up
 * to `MAX_COLLECTED_ERRORS`); `$ref`s resolve into the `registry` and to the well-known meta-schemas.
 *
 * Where the compiler cannot load synchronously, `validate` returns a promise until it has loaded;
 * every call after that is synchronous.
 *
 * @throws Error when a raw JSON Schema's `$ref` resolves nowhere or loops without descending into the
 * value (see `assertRefsWork`), when a `pattern` or a `patternProperties` key is not a valid regular expression or
 * uses what RE2 cannot run (backreferences, lookaheads other than at the start of an anchored
 * pattern), or (once the compiler is loaded) when TypeBox cannot compile the schema.
 */
export function compileTypeBox<T>(given: object, vendor: 'typebox' | 'json-schema', options: TypeBoxCompileOptions = {}): CompiledSchema<T> {
  const what = vendor === 'typebox' ? 'TypeBox schema' : 'JSON Schema'
  // What is checked is the document as it is now: the caller may edit its object afterwards.
  const schema = schemaSnapshot(given)
  const registry = registryEntries(options.registry)
  // TypeBox compiles a `$ref` to nothing into "schema is false", and `{ $ref: '#' }` into a stack overflow on every value.
  if (vendor === 'json-schema') assertRefsWork(schema, registry)
  const scans = [schema, ...Object.values(registry)].filter((s): s is object => typeof s === 'object').map(scanSchema)
  // TypeBox's usual compile errors are bad regexes (and unresolvable `$ref`s, which `assertJsonSchemaShape`
  // checks for raw JSON Schema): reported now, even when compiling itself waits for the compiler.
  const badPattern = scans.find((s) => s.patternError !== undefined)?.patternError
  if (badPattern !== undefined) throw compileError(what, badPattern)
  const meta = scans.some((s) => s.refsMetaschema)
  const formats = options.formats ?? 'assert'
  // The meta-schemas hold `format: 'regex'`.
  const format = formats === 'assert' && (meta || scans.some((s) => s.hasCostlyFormats))
  const needs: EngineNeeds = { re2: meta || scans.some((s) => s.hasPatterns), meta, format }
  const ready = enginesNow(needs)
  const evaluate = options.evaluate !== false
  const source: SchemaToCheck = { schema, registry, formats, patterns: needs.re2, what }
  let check: Check<T> | undefined = ready === undefined ? undefined : checkOf<T>(withCompiler(ready, evaluate), source)
  let pending: Promise<Check<T>> | undefined
  if (check === undefined) {
    pending = loadEngines(needs).then((loaded) => (check = checkOf<T>(withCompiler(loaded, evaluate), source)))
    // Nobody may validate before a compile error surfaces; whoever does sees the rejection.
    pending.catch(() => undefined)
  }
  return {
    vendor,
    // TypeBox schemas are JSON Schema; `~kind` is non-enumerable, so it never reaches the wire.
    jsonSchema: given as JsonSchema,
    declaredKeysOnly: Object.keys(registry).length === 0 && declaredKeysOnly(schema),
    validate(value) {
      if (check !== undefined) return check(value)
      return (pending as Promise<Check<T>>).then((ready) => ready(value))
    },
    test(value) {
      return check?.test(value) === true
    },
  }
}

function checkOf<T>(given: Engines, { schema, registry, formats, patterns, what }: SchemaToCheck): Check<T> {
  let engines = given
  let validator: Validator
  const checks = new Map<string, PatternPropertiesCheck | BoundedFormatCheck | UniqueItemsCheck>()
  try {
    const prepare = (doc: object) => {
      const prepared = prepareSchema(doc, { re2: engines.re2, formats, format: engines.format, hashing: engines.system.Hashing })
      for (const [token, c] of prepared.checks) checks.set(token, c)
      return prepared
    }
    const main = prepare(schema)
    const context: Record<string, unknown> = metaschemas(engines, prepare)
    for (const [uri, doc] of Object.entries(registry)) {
      const prepared = typeof doc === 'object' ? prepare(doc) : undefined
      context[uri] = prepared?.schema ?? doc
      Object.assign(context, prepared?.resources)
    }
    try {
      validator = engines.compiler.Compile(context, main.schema)
    } catch (error) {
      // Code generated for a wide schema (an enum of 5,000 values, 2,000 properties) can overflow the
      // stack of the engine parsing it: such a schema is checked by walking it as data, with the same
      // verdicts and errors, rather than refused.
      if (!(error instanceof RangeError)) throw error
      engines = withCompiler(engines, false)
      validator = engines.compiler.Compile(context, main.schema)
    }
    if (checks.size > 0) {
      // Subschemas of patternProperties compile as `$ref`s into the prepared documents, so their own refs resolve alike.
      const documents = { ...context, ...main.resources }
      let n = 0
      const compileAt = (uri: string) => engines.compiler.Compile(documents, { $id: `urn:reliability-gate:sub:${++n}`, $ref: uri })
      for (const c of checks.values()) if (c instanceof PatternPropertiesCheck) c.bind(compileAt)
    }
  } catch (error) {
    throw compileError(what, error)
  }
  // Only a schema holding patterns opens a pattern budget: nothing is added to the others' checks.
  const check = (value: unknown): boolean => {
    if (!patterns) return validator.Check(value)
    const opened = openPatternBudget()
    try {
      return validator.Check(value)
    } finally {
      closePatternBudget(opened)
    }
  }
  // A plain object root is walked property by property (same errors, a fraction of the cost); only
  // where no pattern budget or prepared check is involved.
  const walk = !patterns && checks.size === 0 ? objectErrorWalk(engines, validator.Context() as Record<string, unknown>, validator.Type()) : undefined
  const errorsOf = (value: unknown): TypeBoxError[] => {
    const opened = patterns && openPatternBudget()
    let refused: ReadonlySet<string> | undefined
    let errors: TypeBoxError[]
    try {
      // The interpretive walk directly: `validator.Errors` would check the value once more first.
      errors = withMaxErrors(
        engines,
        MAX_COLLECTED_ERRORS,
        () => walk?.(value) ?? expand(engines.value.Errors(validator.Context(), validator.Type(), value) as TypeBoxError[], value, checks),
      )
    } finally {
      refused = closePatternBudget(opened)
    }
    return refused === undefined ? errors : errors.map((e) => unchecked(e, value, refused))
  }
  const validate = (value: unknown): SchemaResult<T> => {
    try {
      if (check(value)) return { ok: true, value: value as T }
      return rejected(typeboxIssues(errorsOf(value), value), 'the value does not match the schema')
    } catch (error) {
      // A schema TypeBox cannot evaluate for this value is reported, not thrown.
      return rejectedByThrow(error, value)
    }
  }
  const test = (value: unknown): boolean => {
    try {
      return check(value)
    } catch {
      return false
    }
  }
  return Object.assign(validate, { test })
}

/** The engines as given, or with TypeBox's compiler replaced by its interpretive checks (nothing generated from the schema). */
function withCompiler(engines: Engines, evaluate: boolean): Engines {
  return evaluate ? engines : { ...engines, compiler: interpretedCompiler(engines.value) }
}

/** The meta-schemas a document `$ref`s, prepared like it (they hold patterns, which run on RE2 too). */
function metaschemas(engines: Engines, prepare: (doc: object) => { readonly schema: object }): Record<string, unknown> {
  const docs: Record<string, unknown> = {}
  for (const [uri, doc] of Object.entries(engines.meta ?? {})) docs[canonicalUri(uri)] = docs[uri] = prepare(doc).schema
  return docs
}

/** Replaces each `patternProperties`, costly `format` or `uniqueItems` check's error by the errors TypeBox would have reported for the keyword. */
function expand(
  errors: readonly TypeBoxError[],
  root: unknown,
  checks: ReadonlyMap<string, PatternPropertiesCheck | BoundedFormatCheck | UniqueItemsCheck>,
): TypeBoxError[] {
  if (checks.size === 0) return errors as TypeBoxError[]
  const out: TypeBoxError[] = []
  for (const error of errors) {
    const check = error.keyword === '~refine' ? checks.get(String(error.params['message'])) : undefined
    if (check === undefined) out.push(error)
    else out.push(...expand(check.errors(valueAt(root, pointerToSegments(error.instancePath, root)), error.instancePath, error.schemaPath), root, checks))
  }
  return out
}

/** A pattern failure on a string the budget did not let RE2 read says so, instead of "must match". */
function unchecked(error: TypeBoxError, root: unknown, refused: ReadonlySet<string>): TypeBoxError {
  if (error.keyword !== 'pattern') return error
  const value = valueAt(root, pointerToSegments(error.instancePath, root))
  if (typeof value !== 'string' || !refused.has(value)) return error
  return {
    ...error,
    message: `not checked against its pattern: the answer holds more text to check against patterns than the ${PATTERN_BUDGET} characters allowed`,
  }
}

/** The registry as documents by canonical URI: a list is keyed by each schema's absolute `$id`. */
function registryEntries(registry: SchemaRegistry | undefined): Readonly<Record<string, object | boolean>> {
  if (registry === undefined) return {}
  if (!Array.isArray(registry)) {
    const out: Record<string, object | boolean> = {}
    for (const [uri, doc] of Object.entries(registry)) out[canonicalUri(uri)] = schemaSnapshot(doc as object | boolean)
    return out
  }
  const out: Record<string, object> = {}
  for (const doc of registry as readonly object[]) {
    const id = (doc as { $id?: unknown }).$id
    if (typeof id !== 'string' || !URL.canParse(id))
      throw new TypeError(`compileSchema: every schema of a registry list needs an absolute $id; got ${JSON.stringify(id)}`)
    out[canonicalUri(nextUri(id, ROOT_URI))] = schemaSnapshot(doc)
  }
  return out
}

function compileError(what: string, cause: unknown): Error {
  const reason = cause instanceof Error ? cause.message : String(cause)
  return new Error(`compileSchema could not compile the ${what}: ${reason}`, { cause })
}
