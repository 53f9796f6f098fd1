// Keywords whose values are data, not schemas: a `pattern` key inside them is not a regex.
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples'])
// Keywords whose keys are names (of properties or definitions), so a key there is never a keyword.
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])

/**
 * Finds the first `pattern` or `patternProperties` key of a schema that is not a valid regular
 * expression (with the `u` flag, as TypeBox compiles them), without the compiler: compiling is
 * deferred, but a schema this broken must still be rejected at once.
 *
 * @returns the `SyntaxError`, or undefined when every pattern compiles.
 */
export function schemaPatternError(schema: object): SyntaxError | undefined {
  const stack: { node: unknown; names: boolean }[] = [{ node: schema, names: false }]
  const seen = new Set<object>()
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
      const error = key === 'pattern' && typeof value === 'string' ? regexError(value) : key === 'patternProperties' ? keyError(value) : undefined
      if (error !== undefined) return error
      stack.push({ node: value, names: NAME_MAPS.has(key) })
    }
  }
  return undefined
}

function keyError(map: unknown): SyntaxError | undefined {
  if (typeof map !== 'object' || map === null) return undefined
  for (const source of Object.keys(map)) {
    const error = regexError(source)
    if (error !== undefined) return error
  }
  return undefined
}

function regexError(source: string): SyntaxError | undefined {
  try {
    new RegExp(source, 'u')
    return undefined
  } catch (error) {
    return error as SyntaxError
  }
}
