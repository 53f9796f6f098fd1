import { escapePointerToken } from './path.ts'
import type { Re2Pattern } from './regex/re2-pattern.ts'
import type { TypeBoxError } from './typebox-issues.ts'

/** Where a rewritten node keeps its `patternProperties` (and `additionalProperties`) subschemas. */
export const STASH = 'x-rg-pattern-schemas'

const TOKEN = 'reliability-gate:patternProperties#'
let issued = 0

/** A compiled subschema, as a {@link PatternPropertiesCheck} uses it. */
export interface SubValidator {
  Check(value: unknown): boolean
  Errors(value: unknown): readonly unknown[]
}

/** Compiles the subschema at an absolute URI (a `$ref` into the prepared document). */
export type CompileAt = (uri: string) => SubValidator

/**
 * `patternProperties` (and the `additionalProperties` beside it) as a TypeBox `~refine` check, so
 * that keys are matched by RE2 in linear time instead of TypeBox's backtracking `RegExp`. Same
 * meaning as the keyword: every key matched by a pattern has a value valid for that pattern's
 * subschema; every other key not in `properties` is valid for `additionalProperties`. Its errors
 * are expanded by {@link PatternPropertiesCheck.errors} into what TypeBox would report (nested
 * errors at the key's path, `additionalProperties` naming unknown keys).
 *
 * Keys it matches do not count as evaluated for an `unevaluatedProperties` elsewhere unless an
 * `additionalProperties` stood beside the `patternProperties` (then every key does, as the
 * specification says).
 */
export class PatternPropertiesCheck {
  /** What this check's TypeBox error carries as its message, to find the check again. */
  readonly token = `${TOKEN}${++issued}`
  readonly check: (value: unknown) => boolean
  readonly error: () => string
  readonly #patterns: readonly { readonly source: string; readonly re: Re2Pattern; readonly schema: unknown }[]
  readonly #additional: unknown
  readonly #properties: ReadonlySet<string>
  readonly #uri: (index: number) => string
  #validators: (SubValidator | boolean)[] | undefined
  #compile: CompileAt | undefined

  constructor(init: {
    patterns: readonly { readonly source: string; readonly re: Re2Pattern; readonly schema: unknown }[]
    additional: unknown
    properties: ReadonlySet<string>
    uri: (index: number) => string
  }) {
    this.#patterns = init.patterns
    this.#additional = init.additional
    this.#properties = init.properties
    this.#uri = init.uri
    // TypeBox requires own `check` and `error` functions on a refinement.
    this.check = (value) => this.#walk(value, () => false) !== false
    this.error = () => this.token
  }

  /** Sets how subschemas are compiled; they compile on first use, once the whole document exists. */
  bind(compile: CompileAt): void {
    this.#compile = compile
  }

  /**
   * What TypeBox would have reported for the object at `instancePath` (schema at `schemaPath`):
   * the subschemas' own errors under each key, the keys `additionalProperties: false` refuses, and
   * the keys too long to be matched within the pattern budget.
   */
  errors(value: unknown, instancePath: string, schemaPath: string): TypeBoxError[] {
    const out: TypeBoxError[] = []
    const unknownKeys: string[] = []
    this.#walk(value, (key, index, validator) => {
      const at = `${instancePath}/${escapePointerToken(key)}`
      if (index === -1) {
        out.push({ keyword: 'pattern', schemaPath, instancePath: at, params: { key }, message: 'the key is too long to check against patternProperties' })
        return true
      }
      const under =
        index < this.#patterns.length
          ? `${schemaPath}/patternProperties/${escapePointerToken((this.#patterns[index] as { source: string }).source)}`
          : `${schemaPath}/additionalProperties`
      if (validator === false) {
        if (index >= this.#patterns.length) unknownKeys.push(key)
        else out.push({ keyword: 'boolean', schemaPath: under, instancePath: at, params: {}, message: 'must not be present' })
      } else if (validator !== true) {
        for (const e of validator.Errors((value as Record<string, unknown>)[key]) as TypeBoxError[]) {
          // (A failing subschema is checked once more by `Errors`: subschemas are small next to the document.)
          out.push({ ...e, instancePath: `${at}${e.instancePath}`, schemaPath: `${under}${e.schemaPath.replace(/^#/, '')}` })
        }
      }
      return true
    })
    if (unknownKeys.length > 0)
      out.push({
        keyword: 'additionalProperties',
        schemaPath,
        instancePath,
        params: { additionalProperties: unknownKeys },
        message: 'must not have additional properties',
      })
    return out
  }

  /**
   * Visits each key of an object with the validators that apply to it; `onInvalid` decides whether
   * to go on (`true`) after a value fails one. Returns `false` when one failed and it stopped.
   */
  #walk(value: unknown, onInvalid: (key: string, index: number, validator: SubValidator | boolean) => boolean): boolean {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return true
    const validators = this.#validatorsNow()
    const record = value as Record<string, unknown>
    for (const key of Object.keys(record)) {
      let matched = false
      for (let i = 0; i < this.#patterns.length; i++) {
        const match = (this.#patterns[i] as { re: Re2Pattern }).re.match(key)
        // A key too long to match within the budget fails closed: never accepted unchecked.
        if (match === undefined) {
          if (!onInvalid(key, -1, false)) return false
          matched = true
          break
        }
        if (!match) continue
        matched = true
        const validator = validators[i] as SubValidator | boolean
        if (!accepts(validator, record[key]) && !onInvalid(key, i, validator)) return false
      }
      if (matched || this.#properties.has(key)) continue
      const index = this.#patterns.length
      const validator = validators[index]
      if (validator !== undefined && !accepts(validator, record[key]) && !onInvalid(key, index, validator)) return false
    }
    return true
  }

  #validatorsNow(): (SubValidator | boolean)[] {
    if (this.#validators !== undefined) return this.#validators
    const compile = this.#compile
    if (compile === undefined) throw new Error('patternProperties check used before its document was compiled')
    const schemas = [...this.#patterns.map((p) => p.schema), ...(this.#additional === undefined ? [] : [this.#additional])]
    this.#validators = schemas.map((schema, i) => (typeof schema === 'boolean' ? schema : compile(this.#uri(i))))
    return this.#validators
  }
}

function accepts(validator: SubValidator | boolean, value: unknown): boolean {
  return typeof validator === 'boolean' ? validator : validator.Check(value)
}
