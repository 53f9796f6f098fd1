/** BFCL's Python-flavoured parameter types mapped to JSON Schema. */
const TYPES: Readonly<Record<string, string | undefined>> = {
  dict: 'object',
  float: 'number',
  integer: 'integer',
  string: 'string',
  boolean: 'boolean',
  array: 'array',
  tuple: 'array',
}

/**
 * Maps a BFCL parameter schema (`dict`, `float`, `tuple`, `any`, ...) to JSON Schema. `any` and
 * unknown types become the empty schema. With `top` (the default) the parameter object is closed
 * (`additionalProperties: false`), as BFCL's checker rejects parameters the function does not
 * declare; the oracle of the result archive passes `false` and checks declared parameters only.
 */
export function bfclToJsonSchema(node: unknown, top = true): Record<string, unknown> {
  if (typeof node !== 'object' || node === null) return {}
  const n = node as Record<string, unknown>
  const out: Record<string, unknown> = {}
  const type = typeof n['type'] === 'string' ? TYPES[n['type']] : undefined
  if (type !== undefined) out['type'] = type
  if (Array.isArray(n['enum'])) out['enum'] = n['enum']
  if (typeof n['properties'] === 'object' && n['properties'] !== null) {
    out['properties'] = Object.fromEntries(Object.entries(n['properties']).map(([k, v]) => [k, bfclToJsonSchema(v, false)]))
  }
  if (Array.isArray(n['required'])) out['required'] = n['required'].filter((r) => typeof r === 'string')
  if (n['items'] !== undefined) out['items'] = bfclToJsonSchema(n['items'], false)
  if (top) out['additionalProperties'] = false
  return out
}
