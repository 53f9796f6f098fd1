import { FORMAT_MAX_LENGTH } from './bounded-format.ts'
import { DATA_KEYWORDS, NAME_MAPS } from './schema-keywords.ts'

/** The meta-schemas TypeBox ships, by canonical URI: a `$ref` to one of them resolves without a registry. */
export const METASCHEMAS: ReadonlySet<string> = new Set([
  'http://json-schema.org/draft-03/schema',
  'http://json-schema.org/draft-04/schema',
  'http://json-schema.org/draft-06/schema',
  'http://json-schema.org/draft-07/schema',
  'https://json-schema.org/draft/2019-09/schema',
  'https://json-schema.org/draft/2020-12/schema',
])

/** What compiling a schema needs, found without the compiler. */
export interface SchemaScan {
  /** The first `pattern` or `patternProperties` key that is not a valid ECMAScript regex (`u` flag). */
  readonly patternError: SyntaxError | undefined
  /** It holds a `pattern` or `patternProperties`: the RE2 engine is needed. */
  readonly hasPatterns: boolean
  /** It `$ref`s a well-known meta-schema (draft-03 to 2020-12). */
  readonly refsMetaschema: boolean
  /** It holds a costly `format` (see `FORMAT_MAX_LENGTH`), checked with a length bound. */
  readonly hasCostlyFormats: boolean
}

/**
 * Walks a schema once, without the compiler: is every `pattern` and `patternProperties` key a
 * valid regular expression (with the `u` flag, as JSON Schema means them), and what will
 * compiling it need. Compiling is deferred, but a schema this broken must still be rejected at once.
 */
export function scanSchema(schema: object): SchemaScan {
  const stack: { node: unknown; names: boolean }[] = [{ node: schema, names: false }]
  const seen = new Set<object>()
  let hasPatterns = false
  let refsMetaschema = false
  let hasCostlyFormats = false
  while (stack.length > 0) {
    const { node, names } = stack.pop() as { node: unknown; names: boolean }
    if (typeof node !== 'object' || node === null || seen.has(node)) continue
    seen.add(node)
    if (Array.isArray(node)) {
      for (const item of node as unknown[]) stack.push({ node: item, names: false })
      continue
    }
    for (const [key, value] of Object.entries(node)) {
      if (names) {
        stack.push({ node: value, names: false })
        continue
      }
      if (DATA_KEYWORDS.has(key)) continue
      if (key === 'pattern' && (typeof value === 'string' || value instanceof RegExp)) {
        hasPatterns = true
        const error = typeof value === 'string' ? regexError(value) : undefined
        if (error !== undefined) return { patternError: error, hasPatterns, refsMetaschema, hasCostlyFormats }
      } else if (key === 'patternProperties' && typeof value === 'object' && value !== null) {
        hasPatterns ||= Object.keys(value).length > 0
        const error = keyError(value)
        if (error !== undefined) return { patternError: error, hasPatterns, refsMetaschema, hasCostlyFormats }
      } else if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string') {
        refsMetaschema ||= METASCHEMAS.has(value.split('#')[0] as string)
      } else if (key === 'format' && typeof value === 'string') {
        hasCostlyFormats ||= Object.hasOwn(FORMAT_MAX_LENGTH, value)
      }
      stack.push({ node: value, names: NAME_MAPS.has(key) })
    }
  }
  return { patternError: undefined, hasPatterns, refsMetaschema, hasCostlyFormats }
}

function keyError(map: object): SyntaxError | undefined {
  for (const source of Object.keys(map)) {
    const error = regexError(source)
    if (error !== undefined) return error
  }
  return undefined
}

function regexError(source: string): SyntaxError | undefined {
  try {
    // Parsed, never run: the JS engine only checks the syntax the schema promises.
    new RegExp(source, 'u')
    return undefined
  } catch (error) {
    return error as SyntaxError
  }
}
