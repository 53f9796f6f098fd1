import { isPrototypeKey } from '../json/forbidden-keys.ts'
import { ANNOTATION_KEYWORDS } from './schema-keywords.ts'

// Keywords that say nothing about which keys an object may hold (besides the annotations).
const NEUTRAL = new Set([
  'required',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
])
// The keywords this analysis understands; any other makes a schema open (conservatively).
const UNDERSTOOD = new Set(['type', 'properties', 'additionalProperties', 'items', 'const', 'enum', 'anyOf', 'oneOf'])

/**
 * Whether every value a JSON Schema accepts holds, at every depth, only keys the schema declares
 * (`additionalProperties: false` on every object it allows), none of them forbidden (`__proto__`,
 * `constructor`, `prototype`). Then a value the schema accepts needs no forbidden-key scan: the
 * schema has already refused any such key. Conservative: any keyword it does not understand
 * (`$ref`, `patternProperties`, `allOf`, `not`, `if`, tuples, ...) answers `false`.
 *
 * @example
 * declaredKeysOnly({ type: 'object', properties: { a: { type: 'number' } }, additionalProperties: false }) // true
 * declaredKeysOnly({ type: 'object', properties: { a: { type: 'number' } } }) // false: other keys are allowed
 */
export function declaredKeysOnly(schema: unknown): boolean {
  return closed(schema, 0)
}

const MAX_DEPTH = 64

function closed(node: unknown, depth: number): boolean {
  if (node === false) return true
  if (typeof node !== 'object' || node === null || Array.isArray(node) || depth > MAX_DEPTH) return false
  const s = node as Record<string, unknown>
  for (const key of Object.keys(s)) if (!NEUTRAL.has(key) && !ANNOTATION_KEYWORDS.has(key) && !UNDERSTOOD.has(key)) return false
  const branches = s['anyOf'] ?? s['oneOf']
  if (s['anyOf'] !== undefined && s['oneOf'] !== undefined) return false
  // A value must satisfy the node's own keywords and one branch: either closes it.
  if (ownClosed(s, depth)) return true
  return Array.isArray(branches) && branches.length > 0 && branches.every((b) => closed(b, depth + 1))
}

/** Whether the node's own `type`, `const`, `enum`, `properties` and `items` close it. */
function ownClosed(s: Record<string, unknown>, depth: number): boolean {
  if ('const' in s) return isScalar(s['const'])
  if (Array.isArray(s['enum'])) return s['enum'].every(isScalar)
  const type = s['type']
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined
  if (types === undefined) return false
  if (types.includes('object')) {
    if (s['additionalProperties'] !== false) return false
    const properties = s['properties'] ?? {}
    if (typeof properties !== 'object' || properties === null) return false
    for (const [key, sub] of Object.entries(properties)) if (isPrototypeKey(key) || !closed(sub, depth + 1)) return false
  }
  if (types.includes('array') && !closed(s['items'], depth + 1)) return false
  return true
}

function isScalar(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function')
}
