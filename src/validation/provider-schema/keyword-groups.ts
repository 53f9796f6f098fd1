/** Keywords that describe and never assert: ignored by the compiler (`description` is carried over). */
export const ANNOTATIONS: ReadonlySet<string> = new Set([
  'title',
  'description',
  'default',
  'examples',
  'example',
  '$comment',
  '$schema',
  '$id',
  '$anchor',
  '$defs',
  'definitions',
  'deprecated',
  'readOnly',
  'writeOnly',
  'contentSchema',
])

/** The assertion keywords of each JSON type, handed to the target with the node. */
export const TYPE_KEYWORDS = {
  string: ['pattern', 'format', 'minLength', 'maxLength', 'contentEncoding', 'contentMediaType'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'unevaluatedItems'],
  object: ['minProperties', 'maxProperties', 'propertyNames', 'dependentRequired', 'dependencies', 'dependentSchemas'],
} as const satisfies Record<string, readonly string[]>

/** Assertions that no target expresses and that only ever narrow: dropped, left to the gate. */
export const ALWAYS_DROPPED: readonly string[] = ['not', 'if', 'then', 'else']

/** Keywords that say the node is an object (for a node without `type`). */
export const OBJECT_SHAPE = ['properties', 'required', 'additionalProperties', 'patternProperties', 'unevaluatedProperties', ...TYPE_KEYWORDS.object]

/** Keywords that say the node is an array (for a node without `type`). */
export const ARRAY_SHAPE = ['items', 'prefixItems', 'additionalItems', ...TYPE_KEYWORDS.array]

/** True when a schema object carries an assertion (anything beyond annotations). */
export function hasAssertions(schema: Readonly<Record<string, unknown>>): boolean {
  return Object.keys(schema).some((key) => !ANNOTATIONS.has(key))
}
