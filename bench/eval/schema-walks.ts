// Walks over schemas and values for the side-by-side census (bench/eval/peer-schema-census.ts).

/** A copy without Mastra's `x-optional` annotation (not a JSON Schema keyword). */
export function withoutAnnotations(node: unknown): unknown {
  return copied(node, (key) => key === 'x-optional')
}

/** A copy with every `additionalProperties: false` removed: what the schema accepts before objects were closed. */
export function openObjects(node: unknown): unknown {
  return copied(node, (key, value) => key === 'additionalProperties' && value === false)
}

/**
 * A copy of a schema without the entries `drop` names, sharing what the original shares: a compiled
 * schema inlines a `$ref` as one subtree used in many places, and a plain deep copy of such a graph
 * grows exponentially.
 */
function copied(root: unknown, drop: (key: string, value: unknown) => boolean): unknown {
  const done = new Map<object, unknown>()
  const visit = (node: unknown): unknown => {
    if (typeof node !== 'object' || node === null) return node
    const known = done.get(node)
    if (known !== undefined) return known
    if (Array.isArray(node)) {
      const out: unknown[] = []
      done.set(node, out)
      for (const item of node) out.push(visit(item))
      return out
    }
    const out: Record<string, unknown> = {}
    done.set(node, out)
    for (const [k, v] of Object.entries(node)) if (!drop(k, v)) out[k] = visit(v)
    return out
  }
  return visit(root)
}

/** Mastra's OpenAI mapping of a value: an absent property it lists in `x-optional` is sent as `null`. */
export function xOptionalForward(schema: unknown, value: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return value
  const node = schema as Record<string, any>
  if (Array.isArray(node['anyOf'])) {
    const member = node['anyOf'].find((s: Record<string, any>) =>
      Array.isArray(value) ? s?.type === 'array' : typeof value === 'object' && value !== null ? s?.type === 'object' : false,
    )
    return member === undefined ? value : xOptionalForward(member, value)
  }
  if (Array.isArray(value)) return isObject(node['items']) ? value.map((v) => xOptionalForward(node['items'], v)) : value
  if (!isObject(value) || !isObject(node['properties'])) return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = k in node['properties'] ? xOptionalForward(node['properties'][k], v) : v
  for (const k of Array.isArray(node['x-optional']) ? node['x-optional'] : []) if (!(k in out)) out[k] = null
  return out
}

/** Some property optional in the original is required in the sent schema, walking both by `properties` and `items`. */
export function optionalMadeRequired(original: unknown, sent: unknown): boolean {
  if (!isObject(original) || !isObject(sent)) return false
  const before = Array.isArray(original['required']) ? original['required'] : []
  const after = Array.isArray(sent['required']) ? sent['required'] : []
  const props = isObject(original['properties']) ? original['properties'] : {}
  if (Object.keys(props).some((p) => !before.includes(p) && after.includes(p))) return true
  const sentProps = isObject(sent['properties']) ? sent['properties'] : {}
  if (Object.keys(props).some((p) => optionalMadeRequired(props[p], sentProps[p]))) return true
  return optionalMadeRequired(original['items'], sent['items'])
}

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
