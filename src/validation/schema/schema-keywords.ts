/** Keywords whose values are data, not schemas: a `pattern` or `format` key inside them is not a keyword. */
export const DATA_KEYWORDS: ReadonlySet<string> = new Set(['const', 'default', 'enum', 'examples'])

/** Keywords whose keys are names (of properties or definitions), so a key there is never a keyword. */
export const NAME_MAPS: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])

/** Keywords that only annotate a schema: they accept or refuse nothing. */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  'title',
  'description',
  '$comment',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$schema',
])

/**
 * Every keyword of JSON Schema drafts 03 to 2020-12 (and OpenAPI's `nullable`, `discriminator` and
 * `example`): an object holding none of them is no JSON Schema, whatever its keys say (see
 * `assertSchemaKeywords`).
 */
export const JSON_SCHEMA_KEYWORD_LIST = [
  ...['$schema', '$id', 'id', '$ref', '$anchor', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor', '$vocabulary', '$comment'],
  ...['$defs', 'definitions', 'title', 'description', 'default', 'examples', 'example', 'deprecated', 'readOnly', 'writeOnly'],
  ...['type', 'enum', 'const', 'multipleOf', 'divisibleBy', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'],
  ...['maxLength', 'minLength', 'pattern', 'format', 'contentEncoding', 'contentMediaType', 'contentSchema'],
  ...['items', 'prefixItems', 'additionalItems', 'unevaluatedItems', 'contains', 'maxContains', 'minContains', 'maxItems', 'minItems', 'uniqueItems'],
  ...['properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties', 'propertyNames', 'maxProperties', 'minProperties'],
  ...['required', 'dependentRequired', 'dependentSchemas', 'dependencies'],
  ...['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'extends', 'disallow', 'nullable', 'discriminator'],
] as const

/** One JSON Schema keyword (see {@link JSON_SCHEMA_KEYWORD_LIST}). */
export type JsonSchemaKeyword = (typeof JSON_SCHEMA_KEYWORD_LIST)[number]

const JSON_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set(JSON_SCHEMA_KEYWORD_LIST)

const SHOWN_KEYS = 5

/**
 * Refuses a non-empty JSON Schema object none of whose keys is a JSON Schema keyword
 * (`{ orderId: 'string', amount: 'number' }`, or field schemas without `properties` around them): such an
 * object constrains nothing, so it would accept every value. `{}` (and `true`) stay the legal way to
 * accept anything; a schema with at least one keyword may carry vendor keys (`x-...`) beside it.
 *
 * @throws TypeError naming the keys and what to write instead.
 */
export function assertSchemaKeywords(schema: object): void {
  const keys = Object.keys(schema)
  if (keys.length === 0 || keys.some((key) => JSON_SCHEMA_KEYWORDS.has(key))) return
  const shown = keys.slice(0, SHOWN_KEYS).map((key) => JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key))
  const more = keys.length > SHOWN_KEYS ? `, and ${keys.length - SHOWN_KEYS} more` : ''
  throw new TypeError(
    `compileSchema: this object has no JSON Schema keyword (its keys: ${shown.join(', ')}${more}), so as a JSON Schema it would accept every value. ` +
      `To describe an object with these fields, write { type: 'object', properties: { name: { type: 'string' }, ... } }; to accept anything, pass {} or true`,
  )
}
