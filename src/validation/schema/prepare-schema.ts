import { BoundedFormatCheck, FORMAT_MAX_LENGTH, type FormatModule } from './bounded-format.ts'
import { type HashingModule, UniqueItemsCheck } from './unique-items-check.ts'
import { PatternPropertiesCheck, STASH } from './pattern-properties.ts'
import type { Re2Module } from './regex/re2-engine.ts'
import { Re2Pattern } from './regex/re2-pattern.ts'
import { isQuantifierFree } from './regex/native-safe.ts'
import { DATA_KEYWORDS, NAME_MAPS } from './schema-keywords.ts'
import { canonicalUri, nextUri, pointerToken, ROOT_URI } from './schema-uri.ts'

/** How `format` is treated: checked (the default for output validation) or an annotation (2020-12's default). */
export type FormatMode = 'assert' | 'annotate'

/** A schema made ready for TypeBox's compiler: regexes on RE2, formats as configured. */
export interface PreparedSchema {
  readonly schema: object
  /** The `patternProperties` and costly `format` checks it holds, by the token their TypeBox errors carry. */
  readonly checks: ReadonlyMap<string, PatternPropertiesCheck | BoundedFormatCheck | UniqueItemsCheck>
  /** Every schema resource of this document by canonical URI (for `$ref`s into it). */
  readonly resources: Readonly<Record<string, object>>
}

/**
 * Rewrites a schema (structurally shared: only changed nodes are copied, the caller's object is
 * never mutated) so that no check runs a backtracking regular expression:
 * - every `pattern` becomes an {@link Re2Pattern} (TypeBox accepts a `RegExp` object there and only
 *   calls its `test`), so it runs on RE2 in linear time, with the same error message;
 * - every `patternProperties` with a quantified pattern becomes a `~refine` check ({@link PatternPropertiesCheck}) that
 *   matches the keys with RE2 and validates their values with the subschemas (kept in place under
 *   `x-rg-pattern-schemas`, so `$ref`s inside them resolve as before); an `additionalProperties`
 *   beside it moves into the same check; quantifier-free patterns (`^x-`, `^(a|b)$`), which cannot
 *   backtrack, stay as they are;
 * - with `formats: 'annotate'`, `format` is dropped (an annotation, as in draft 2020-12); else a
 *   costly format (`FORMAT_MAX_LENGTH`) becomes a `~refine` check ({@link BoundedFormatCheck}) that
 *   refuses a string too long to check before running the format;
 * - `uniqueItems: true` becomes a `~refine` check ({@link UniqueItemsCheck}) whose error walk is linear
 *   in the array (TypeBox's is quadratic in the number of duplicates).
 *
 * @throws SyntaxError for a pattern RE2 cannot run in linear time (backreferences, lookaheads other
 * than at the start of an anchored pattern).
 */
export function prepareSchema(
  root: object,
  options: {
    readonly re2: Re2Module | undefined
    readonly formats: FormatMode
    readonly format?: FormatModule | undefined
    readonly hashing?: HashingModule | undefined
  },
): PreparedSchema {
  const checks = new Map<string, PatternPropertiesCheck | BoundedFormatCheck | UniqueItemsCheck>()
  const resources: Record<string, object> = {}
  const done = new Map<object, unknown>()
  const rootBase = typeof (root as { $id?: unknown }).$id === 'string' ? nextUri((root as { $id: string }).$id, ROOT_URI) : ROOT_URI

  const visit = (node: unknown, base: string, pointer: string, names: boolean): unknown => {
    if (typeof node !== 'object' || node === null) return node
    const known = done.get(node)
    if (known !== undefined) return known
    // A cycle (only possible in a schema built by code) is left as it is below the repeat.
    done.set(node, node)
    let out: unknown
    if (Array.isArray(node)) {
      const items = node.map((item: unknown, i) => visit(item, base, `${pointer}/${i}`, false))
      out = items.some((item, i) => item !== node[i]) ? items : node
    } else if (names) {
      const changes = new Map<string, unknown>()
      for (const key of Object.keys(node)) {
        const value = (node as Record<string, unknown>)[key]
        const next = visit(value, base, `${pointer}/${pointerToken(key)}`, false)
        if (next !== value) changes.set(key, next)
      }
      out = changes.size === 0 ? node : copyWith(node, changes, [])
    } else out = visitSchema(node as Record<string, unknown>, base, pointer)
    done.set(node, out)
    return out
  }

  const visitSchema = (node: Record<string, unknown>, parentBase: string, parentPointer: string): object => {
    const id = node['$id']
    const base = typeof id === 'string' && node !== root ? nextUri(id, parentBase) : parentBase
    const pointer = base === parentBase ? parentPointer : ''
    const changes = new Map<string, unknown>()
    const removed: string[] = []
    const refines: (PatternPropertiesCheck | BoundedFormatCheck | UniqueItemsCheck)[] = []
    const pp = node['patternProperties']
    // Quantifier-free patterns stay TypeBox's own (exact for unevaluatedProperties too): they cannot backtrack.
    const withPatterns = typeof pp === 'object' && pp !== null && !Array.isArray(pp) && !Object.keys(pp).every(isQuantifierFree)
    for (const key of Object.keys(node)) {
      const value = node[key]
      if (DATA_KEYWORDS.has(key) || (withPatterns && (key === 'patternProperties' || key === 'additionalProperties'))) continue
      if (key === 'pattern' && (typeof value === 'string' || value instanceof RegExp)) changes.set(key, re2Pattern(value, options.re2))
      else if (key === 'format' && options.formats === 'annotate') removed.push(key)
      else if (key === 'format' && options.format !== undefined && typeof value === 'string' && Object.hasOwn(FORMAT_MAX_LENGTH, value)) {
        refines.push(new BoundedFormatCheck(value, FORMAT_MAX_LENGTH[value] as number, options.format))
        removed.push(key)
      } else if (key === 'uniqueItems' && value === true && options.hashing !== undefined) {
        refines.push(new UniqueItemsCheck(options.hashing))
        removed.push(key)
      } else {
        const next = visit(value, base, `${pointer}/${pointerToken(key)}`, NAME_MAPS.has(key))
        if (next !== value) changes.set(key, next)
      }
    }
    if (withPatterns) {
      // The subschemas move to the stash; they are visited where they will live, for the URIs of nested checks.
      const sources = Object.keys(pp)
      const subs = sources.map((source, i) => ({ source, schema: visit((pp as Record<string, unknown>)[source], base, `${pointer}/${STASH}/${i}`, false) }))
      const additional = 'additionalProperties' in node ? visit(node['additionalProperties'], base, `${pointer}/${STASH}/${sources.length}`, false) : undefined
      const stash = [...subs.map((s) => s.schema), ...(additional === undefined ? [] : [additional])]
      const check = new PatternPropertiesCheck({
        patterns: subs.map((s) => ({ source: s.source, re: re2Pattern(s.source, options.re2), schema: s.schema })),
        additional,
        properties: new Set(typeof node['properties'] === 'object' && node['properties'] !== null ? Object.keys(node['properties']) : []),
        uri: (i: number) => `${canonicalUri(base)}#${pointer}/${STASH}/${i}`,
      })
      refines.push(check)
      removed.push('patternProperties')
      changes.set(STASH, stash)
      // Every key is evaluated here when an additionalProperties was: `true` keeps that for unevaluatedProperties.
      if (additional !== undefined) changes.set('additionalProperties', true)
    }
    if (refines.length > 0) {
      for (const check of refines) checks.set(check.token, check)
      const refine = Array.isArray(node['~refine']) ? (node['~refine'] as unknown[]) : []
      changes.set('~refine', [...refine, ...refines])
      // A TypeBox `~kind` (Record, String...) promises the keywords it was built with: a rewritten node is plain JSON Schema.
      removed.push('~kind')
    }
    const out = changes.size === 0 && removed.length === 0 ? node : copyWith(node, changes, removed)
    if (base !== parentBase || node === root) resources[canonicalUri(node === root ? rootBase : base)] = out
    return out
  }

  const schema = visit(root, rootBase, '', false) as object
  return { schema, checks, resources }
}

function re2Pattern(value: string | RegExp, re2: Re2Module | undefined): Re2Pattern {
  if (re2 === undefined) throw new Error('the RE2 engine is not loaded')
  return typeof value === 'string'
    ? new Re2Pattern(value, 'u', re2)
    : new Re2Pattern(value.source, value.flags.includes('u') ? value.flags : `${value.flags}u`, re2)
}

/** A copy of `node` with every own property (non-enumerable and symbol ones included, such as TypeBox's `~kind`), changed and removed as asked. */
function copyWith(node: object, changes: ReadonlyMap<string, unknown>, removed: readonly string[]): object {
  const copy: object = Array.isArray(node) ? [] : Object.create(Object.getPrototypeOf(node) as object | null)
  for (const key of Reflect.ownKeys(node)) {
    if (typeof key === 'string' && removed.includes(key)) continue
    if (Array.isArray(node) && key === 'length') continue
    const descriptor = Object.getOwnPropertyDescriptor(node, key) as PropertyDescriptor
    if (typeof key === 'string' && changes.has(key)) descriptor.value = changes.get(key)
    Object.defineProperty(copy, key, { ...descriptor, configurable: true, ...('value' in descriptor ? { writable: true } : {}) })
  }
  for (const [key, value] of changes) {
    if (!Object.hasOwn(copy, key)) Object.defineProperty(copy, key, { value, enumerable: true, configurable: true, writable: true })
  }
  return copy
}
