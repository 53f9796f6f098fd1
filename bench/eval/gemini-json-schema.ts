/**
 * Reads a Gemini `responseSchema` (OpenAPI 3.0 subset) as the JSON Schema of the values Gemini can
 * emit for it, so the evaluation can check `forward(v)` against it with the library's validator:
 * lower-case types, `nullable` as a `null` member, objects closed (Gemini emits declared properties
 * only), `propertyOrdering` and the `enum` format dropped.
 */
export function geminiToJsonSchema(node: unknown): unknown {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return node
  const { type, nullable, format, propertyOrdering: _, properties, items, anyOf, enum: values, ...rest } = node as Record<string, unknown>
  const out: Record<string, unknown> = { ...rest }
  if (format !== undefined && format !== 'enum') out['format'] = format
  if (Array.isArray(values)) out['enum'] = nullable === true ? [...values, null] : values
  if (properties !== undefined) {
    out['properties'] = Object.fromEntries(Object.entries(properties as Record<string, unknown>).map(([k, v]) => [k, geminiToJsonSchema(v)]))
    out['additionalProperties'] = false
  }
  if (items !== undefined) out['items'] = geminiToJsonSchema(items)
  if (Array.isArray(anyOf)) out['anyOf'] = anyOf.map(geminiToJsonSchema)
  if (typeof type === 'string') {
    const lower = type.toLowerCase()
    out['type'] = nullable === true ? [lower, 'null'] : lower
  } else if (nullable === true && Array.isArray(anyOf)) out['anyOf'] = [...(out['anyOf'] as unknown[]), { type: 'null' }]
  return out
}
