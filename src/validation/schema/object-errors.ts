import { isRecord } from '../../model/is-record.ts'
import { isPrototypeKey } from '../json/forbidden-keys.ts'
import { escapePointerToken } from './path.ts'
import { ANNOTATION_KEYWORDS } from './schema-keywords.ts'
import type { Engines } from './typebox-engines.ts'
import type { TypeBoxError } from './typebox-issues.ts'

/** Keywords whose meaning depends on where a subschema sits (base URIs, references, evaluated keys). */
const CONTEXTUAL = new Set([
  '$ref',
  '$id',
  '$defs',
  'definitions',
  '$anchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$recursiveRef',
  '$recursiveAnchor',
  'unevaluatedProperties',
  'unevaluatedItems',
])

interface PropertyPlan {
  readonly key: string
  readonly schema: unknown
  /** The key as a JSON Pointer fragment (`~` and `/` escaped, as TypeBox writes paths). */
  readonly fragment: string
  /** Listed in `required`: TypeBox then never takes an undefined value as absent. */
  readonly required: boolean
  check: ((value: unknown) => boolean) | undefined
}

/**
 * TypeBox's error walk for the most common root, a plain object schema (`type: 'object'` with
 * `properties`, `required` and a boolean `additionalProperties`), done property by property: the
 * root's own errors are written here, each failing property's subschema is walked by TypeBox alone.
 * The result is TypeBox's, error for error (keywords, paths, params, messages from its locale, in
 * its order, capped at its `maxErrors`), at a fraction of the cost: TypeBox's walk of the whole object
 * builds a Unicode RegExp of the declared keys and re-checks every property on every call.
 *
 * Answers `undefined` for any other root, or when a subschema holds a keyword whose meaning depends
 * on where it sits (`$ref`, `$id`, `unevaluatedProperties`, ...): those take TypeBox's whole walk.
 */
export function objectErrorWalk(
  engines: Engines,
  context: Record<string, unknown>,
  root: unknown,
): ((value: unknown) => TypeBoxError[] | undefined) | undefined {
  if (!isRecord(root) || root['type'] !== 'object' || !isRecord(root['properties'])) return undefined
  for (const key of Object.keys(root)) {
    if (key !== 'type' && key !== 'properties' && key !== 'required' && key !== 'additionalProperties' && !ANNOTATION_KEYWORDS.has(key)) return undefined
  }
  const required = root['required'] ?? []
  const additional = root['additionalProperties']
  if (!Array.isArray(required) || !required.every((k) => typeof k === 'string')) return undefined
  if (additional !== undefined && typeof additional !== 'boolean') return undefined
  const properties: PropertyPlan[] = []
  for (const [key, schema] of Object.entries(root['properties'] as Record<string, unknown>)) {
    if (holdsContextual(schema, new Set())) return undefined
    properties.push({ key, schema, fragment: escapePointerToken(key), required: (required as unknown[]).includes(key), check: undefined })
  }
  const declared = new Set(properties.map((p) => p.key))
  const requiredKeys = required as readonly string[]

  return (value) => {
    if (!isRecord(value)) return undefined
    const errors: Omit<TypeBoxError, 'message'>[] = []
    const missing = requiredKeys.filter((key) => !hasPropertyKey(value, key))
    if (missing.length > 0) errors.push({ keyword: 'required', schemaPath: '#', instancePath: '', params: { requiredProperties: missing } })
    if (additional === false) {
      const extra: string[] = []
      for (const key of Object.getOwnPropertyNames(value)) {
        if (declared.has(key)) continue
        errors.push({ keyword: 'boolean', schemaPath: '#/additionalProperties', instancePath: `/${escapePointerToken(key)}`, params: {} })
        extra.push(key)
      }
      if (extra.length > 0) errors.push({ keyword: 'additionalProperties', schemaPath: '#', instancePath: '', params: { additionalProperties: extra } })
    }
    const settings = engines.system.Settings.Get()
    const locale = engines.system.Locale.Get()
    const out: TypeBoxError[] = errors.map((e) => ({ ...e, message: locale(e) }))
    for (const p of properties) {
      // TypeBox's order and its optional-property rule: an absent key, or (unless exact) an undefined value, passes.
      if (!(p.required || settings.exactOptionalPropertyTypes === true) && value[p.key] === undefined) continue
      if (!hasPropertyKey(value, p.key)) continue
      const v = value[p.key]
      p.check ??= compiledCheck(engines, context, p.schema)
      if (p.check(v)) continue
      for (const e of engines.value.Errors(context, p.schema, v) as TypeBoxError[]) {
        out.push({ ...e, schemaPath: `#/properties/${p.fragment}${e.schemaPath.slice(1)}`, instancePath: `/${p.fragment}${e.instancePath}` })
      }
    }
    return out.length > settings.maxErrors ? out.slice(0, settings.maxErrors) : out
  }
}

function compiledCheck(engines: Engines, context: Record<string, unknown>, schema: unknown): (value: unknown) => boolean {
  const validator = engines.compiler.Compile(context, schema)
  return (value) => validator.Check(value)
}

/** TypeBox's own test for a present key: own for the keys that reach prototypes, `in` for the others. */
function hasPropertyKey(value: object, key: string): boolean {
  return isPrototypeKey(key) ? Object.hasOwn(value, key) : key in value
}

/** Whether a subschema holds (at any depth) a keyword whose meaning depends on where it sits. */
function holdsContextual(node: unknown, seen: Set<object>): boolean {
  if (typeof node !== 'object' || node === null || seen.has(node)) return false
  seen.add(node)
  if (Array.isArray(node)) return node.some((item) => holdsContextual(item, seen))
  for (const [key, child] of Object.entries(node)) {
    if (CONTEXTUAL.has(key) || holdsContextual(child, seen)) return true
  }
  return false
}
