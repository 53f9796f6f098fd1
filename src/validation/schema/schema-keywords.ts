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
