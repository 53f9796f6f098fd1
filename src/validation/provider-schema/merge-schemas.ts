import { isRecord } from '../../model/is-record.ts'
import { Uncompilable } from './types.ts'

type Schema = Readonly<Record<string, unknown>>

const FIRST_WINS: ReadonlySet<string> = new Set([
  'title',
  'description',
  'default',
  'examples',
  'example',
  '$comment',
  '$id',
  '$schema',
  '$defs',
  'definitions',
])
const CLOSERS = ['additionalProperties', 'patternProperties', 'unevaluatedProperties']

function typesOf(type: unknown): string[] {
  return Array.isArray(type) ? type.map(String) : [String(type)]
}

/** `type` of both: the types both allow (`integer` is within `number`). */
function intersectTypes(a: unknown, b: unknown, at: string): unknown {
  const right = typesOf(b)
  const both = typesOf(a).flatMap((t) => {
    if (right.includes(t)) return [t]
    if (t === 'integer' && right.includes('number')) return ['integer']
    if (t === 'number' && right.includes('integer')) return ['integer']
    return []
  })
  if (both.length === 0) throw new Uncompilable('allOf members allow no common type: the schema accepts nothing', at)
  return both.length === 1 ? both[0] : [...new Set(both)]
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** An object that closes itself (`additionalProperties` and kin) must not meet properties it does not declare. */
function checkClosers(closed: Schema, other: Schema, at: string): void {
  if (!CLOSERS.some((key) => key in closed) || !isRecord(other['properties'])) return
  const declared = isRecord(closed['properties']) ? closed['properties'] : {}
  if (Object.keys(other['properties']).some((name) => !Object.hasOwn(declared, name)))
    throw new Uncompilable('allOf members declare properties another member closes out', at)
}

/**
 * The schema both `a` and `b` describe (`allOf: [a, b]`), as one schema object: properties are
 * united (a property both declare becomes the `allOf` of both), `required` lists united, `type`s
 * intersected, annotations taken from `a`. Any other keyword both carry with different values makes
 * the merge refuse: an exact merge is the only kind that keeps meaning.
 */
export function mergeSchemas(a: Schema, b: Schema, at: string): Record<string, unknown> {
  checkClosers(a, b, at)
  checkClosers(b, a, at)
  const merged: Record<string, unknown> = { ...a }
  for (const [key, value] of Object.entries(b)) {
    if (!Object.hasOwn(merged, key)) {
      Object.defineProperty(merged, key, { value, enumerable: true, writable: true, configurable: true })
      continue
    }
    const mine = merged[key]
    if (FIRST_WINS.has(key) || sameJson(mine, value)) continue
    if (key === 'type') merged[key] = intersectTypes(mine, value, at)
    else if (key === 'required' && Array.isArray(mine) && Array.isArray(value)) merged[key] = [...new Set([...mine, ...value])]
    else if (key === 'allOf' && Array.isArray(mine) && Array.isArray(value)) merged[key] = [...mine, ...value]
    else if (key === 'properties' && isRecord(mine) && isRecord(value)) merged[key] = mergeProperties(mine, value)
    else throw new Uncompilable(`allOf members disagree on "${key}"`, at)
  }
  return merged
}

function mergeProperties(a: Schema, b: Schema): Record<string, unknown> {
  const entries = Object.entries(a).map(([name, schema]): [string, unknown] => [name, Object.hasOwn(b, name) ? { allOf: [schema, b[name]] } : schema])
  for (const [name, schema] of Object.entries(b)) if (!Object.hasOwn(a, name)) entries.push([name, schema])
  return Object.fromEntries(entries)
}
