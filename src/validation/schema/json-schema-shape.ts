import { resolveJsonPointer } from './json-pointer.ts'

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'])
const SCHEMA_MAPS = ['properties', '$defs', 'definitions', 'patternProperties', 'dependentSchemas'] as const
const SCHEMA_LISTS = ['anyOf', 'allOf', 'oneOf', 'prefixItems'] as const
const SCHEMA_SINGLES = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames'] as const

/**
 * Checks the structure of a raw JSON Schema before compiling it. TypeBox's compiler accepts almost
 * anything (`{type: 5}` compiles and passes every value), so a malformed schema would otherwise
 * silently accept all output; this fails loudly at compile time instead.
 *
 * @throws Error naming the first malformed keyword and where it is.
 */
export function assertJsonSchemaShape(root: object): void {
  // `base` is the schema resource a `#/...` reference is relative to: the nearest `$id`, else the root.
  const stack: { node: unknown; at: string; base: object }[] = [{ node: root, at: '#', base: root }]
  const seen = new Set<unknown>()
  while (stack.length > 0) {
    const { node, at, base: parentBase } = stack.pop() as { node: unknown; at: string; base: object }
    if (typeof node === 'boolean') continue
    if (typeof node !== 'object' || node === null || Array.isArray(node)) fail(at, 'a schema must be an object or a boolean')
    if (seen.has(node)) continue
    seen.add(node)
    const schema = node as Record<string, unknown>
    const base = typeof schema['$id'] === 'string' ? schema : parentBase
    const type = schema['type']
    if (type !== undefined) {
      const types = Array.isArray(type) ? type : [type]
      for (const t of types) if (typeof t !== 'string' || !JSON_TYPES.has(t)) fail(`${at}/type`, `unknown type ${JSON.stringify(t) ?? String(t)}`)
    }
    const required = schema['required']
    if (required !== undefined && (!Array.isArray(required) || required.some((r) => typeof r !== 'string'))) {
      fail(`${at}/required`, 'required must be an array of property names')
    }
    const ref = schema['$ref']
    if (typeof ref === 'string' && ref.startsWith('#') && !resolves(base, ref) && !resolves(root, ref)) {
      fail(`${at}/$ref`, `$ref ${JSON.stringify(ref)} does not resolve`)
    }
    for (const key of SCHEMA_MAPS) {
      const map = schema[key]
      if (map === undefined) continue
      if (typeof map !== 'object' || map === null || Array.isArray(map)) fail(`${at}/${key}`, `${key} must be an object of schemas`)
      for (const [name, child] of Object.entries(map)) stack.push({ node: child, at: `${at}/${key}/${name}`, base })
    }
    for (const key of SCHEMA_LISTS) {
      const list = schema[key]
      if (list === undefined) continue
      if (!Array.isArray(list)) fail(`${at}/${key}`, `${key} must be an array of schemas`)
      for (let i = 0; i < list.length; i++) stack.push({ node: list[i] as unknown, at: `${at}/${key}/${i}`, base })
    }
    for (const key of SCHEMA_SINGLES) {
      const child = schema[key]
      if (child === undefined) continue
      // Draft-07 tuples put an array under `items`.
      if (key === 'items' && Array.isArray(child))
        for (let i = 0; i < child.length; i++) stack.push({ node: child[i] as unknown, at: `${at}/items/${i}`, base })
      else stack.push({ node: child, at: `${at}/${key}`, base })
    }
  }
}

function resolves(root: object, ref: string): boolean {
  // Anchors and external refs are TypeBox's business; only local pointers are checked here.
  return !ref.startsWith('#/') || resolveJsonPointer(root, ref) !== undefined
}

function fail(at: string, reason: string): never {
  throw new Error(`invalid JSON Schema at ${at}: ${reason}`)
}
