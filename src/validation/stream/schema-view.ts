/**
 * A conservative reading of a JSON Schema for incremental validation.
 *
 * A *view* is the list of schema objects that all apply to one value (a `$ref` followed, `allOf`
 * flattened). Every check here is a *necessary* condition of the full schema: when a check fails,
 * no completion of the value can pass, so aborting is safe. Keywords not understood here only
 * ever make the checks weaker (fewer aborts), never stronger.
 */

import { resolveJsonPointer } from '../schema/json-pointer.ts'

type SchemaObject = Readonly<Record<string, unknown>>

/** The schema objects that all apply to one value. Empty: nothing is known. */
export type SchemaView = readonly SchemaObject[]

/** The JSON type of a value as it starts streaming. */
export type JsonType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null'

// `false` as a schema: no value passes.
const NOTHING: SchemaObject = Object.freeze({ '~nothing': true })
const MAX_DEPTH = 32

/** Resolves the root schema into a view. */
export function rootView(schema: unknown): SchemaView {
  return flatten(schema, schema, [], 0)
}

/** Resolves any subschema of `root` into a view. */
export function viewOf(node: unknown, root: unknown): SchemaView {
  return flatten(node, root, [], 0)
}

function flatten(node: unknown, root: unknown, out: SchemaObject[], depth: number): SchemaObject[] {
  if (depth > MAX_DEPTH || node === true || node === undefined) return out
  if (node === false) {
    out.push(NOTHING)
    return out
  }
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return out
  const s = node as SchemaObject
  if (typeof s['$ref'] === 'string') {
    // Only local refs are followed; an unresolvable ref contributes nothing (weaker, never wrong).
    const target = resolveJsonPointer(root, s['$ref'])
    if (target !== undefined) flatten(target, root, out, depth + 1)
  }
  out.push(s)
  if (Array.isArray(s['allOf'])) for (const branch of s['allOf']) flatten(branch, root, out, depth + 1)
  return out
}

/** The JSON type of a parsed value. */
export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  const t = typeof value
  return t === 'string' || t === 'number' || t === 'boolean' ? t : 'object'
}

/** In place of a value whose type alone is known (it has only started streaming): parsed JSON never holds a symbol. */
const TYPE_ONLY = Symbol('type only')

/** Can a value of type `t` (this `value`, or any: {@link TYPE_ONLY}) satisfy the node? */
function nodeAllowsType(node: SchemaObject, t: JsonType, value: unknown, root: unknown): boolean {
  if (node === NOTHING) return false
  const type = node['type']
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type]
    const ok = types.some((x) => x === t || (t === 'number' && x === 'integer' && (value === TYPE_ONLY || Number.isInteger(value))))
    if (!ok) return false
  }
  if ('const' in node && !typeMatches(node['const'], t)) return false
  if (Array.isArray(node['enum']) && !node['enum'].some((m) => typeMatches(m, t))) return false
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = node[key]
    if (Array.isArray(branches) && branches.length > 0 && !branches.some((b) => allowsType(viewOf(b, root), t, value, root))) return false
  }
  return true
}

function typeMatches(member: unknown, t: JsonType): boolean {
  return jsonTypeOf(member) === t
}

function allowsType(view: SchemaView, t: JsonType, value: unknown, root: unknown): boolean {
  return view.every((node) => nodeAllowsType(node, t, value, root))
}

/** Can a value of JSON type `t` satisfy the view (as far as types, `const` and `enum` tell)? */
export function typeAllowed(view: SchemaView, t: JsonType, root: unknown): boolean {
  return allowsType(view, t, TYPE_ONLY, root)
}

/** Can a value of this one's type satisfy the view? Like {@link typeAllowed}, and `integer` rejects 1.5. */
export function valueTypeAllowed(view: SchemaView, value: unknown, root: unknown): boolean {
  return allowsType(view, jsonTypeOf(value), value, root)
}

/** Can this completed value satisfy the view (type, integer-ness, `const`, `enum`)? */
export function valueAllowed(view: SchemaView, value: unknown, root: unknown): boolean {
  const t = jsonTypeOf(value)
  for (const node of view) {
    if (!nodeAllowsType(node, t, value, root)) return false
    if ('const' in node && !deepEqual(node['const'], value)) return false
    if (Array.isArray(node['enum']) && !node['enum'].some((m) => deepEqual(m, value))) return false
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = node[key]
      if (Array.isArray(branches) && branches.length > 0 && !branches.some((b) => valueAllowed(viewOf(b, root), value, root))) return false
    }
  }
  return true
}

/** Can a string that starts with `prefix` still satisfy the view (`const` / `enum` prefixes)? */
export function prefixAllowed(view: SchemaView, prefix: string, root: unknown): boolean {
  for (const node of view) {
    if (!nodeAllowsType(node, 'string', TYPE_ONLY, root)) return false
    if ('const' in node && !(typeof node['const'] === 'string' && node['const'].startsWith(prefix))) return false
    if (Array.isArray(node['enum']) && !node['enum'].some((m) => typeof m === 'string' && m.startsWith(prefix))) return false
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = node[key]
      if (Array.isArray(branches) && branches.length > 0 && !branches.some((b) => prefixAllowed(viewOf(b, root), prefix, root))) return false
    }
  }
  return true
}

/**
 * The view for the children of a value of type `t`: when exactly one branch of an `anyOf` /
 * `oneOf` admits the type, its constraints join the view; with several, they are left out.
 */
export function narrow(view: SchemaView, t: JsonType, root: unknown): SchemaView {
  let out: SchemaObject[] | undefined
  for (const node of view) {
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = node[key]
      if (!Array.isArray(branches)) continue
      const fitting = branches.map((b) => viewOf(b, root)).filter((v) => typeAllowed(v, t, root))
      if (fitting.length === 1) (out ??= [...view]).push(...narrow(fitting[0] as SchemaView, t, root))
    }
  }
  return out ?? view
}

/** The view of property `key` of an object. */
export function propertyView(view: SchemaView, key: string, root: unknown): SchemaView {
  const out: SchemaObject[] = []
  for (const node of view) {
    const props = node['properties'] as Record<string, unknown> | undefined
    if (props !== undefined && typeof props === 'object' && Object.hasOwn(props, key)) {
      flatten(props[key], root, out, 0)
      continue
    }
    // A pattern might match: its schema is not tracked, and additionalProperties may not apply.
    if (node['patternProperties'] !== undefined) continue
    const additional = node['additionalProperties']
    if (additional !== undefined) flatten(additional, root, out, 0)
  }
  return out
}

/** Is `key` forbidden by `additionalProperties: false` (with no pattern that could admit it)? */
export function unknownKey(view: SchemaView, key: string): boolean {
  return view.some((node) => {
    if (node['additionalProperties'] !== false || node['patternProperties'] !== undefined) return false
    const props = node['properties'] as Record<string, unknown> | undefined
    return !(props !== undefined && typeof props === 'object' && Object.hasOwn(props, key))
  })
}

/** The required property names of an object. */
export function requiredKeys(view: SchemaView): readonly string[] {
  const out = new Set<string>()
  for (const node of view) if (Array.isArray(node['required'])) for (const k of node['required']) if (typeof k === 'string') out.add(k)
  return [...out]
}

/** The view of element `index` of an array (`prefixItems`, tuple `items`, `items`, `additionalItems`). */
export function itemView(view: SchemaView, index: number, root: unknown): SchemaView {
  const out: SchemaObject[] = []
  for (const node of view) {
    const prefix = node['prefixItems']
    const items = node['items']
    if (Array.isArray(prefix)) {
      if (index < prefix.length) flatten(prefix[index], root, out, 0)
      else if (items !== undefined && !Array.isArray(items)) flatten(items, root, out, 0)
    } else if (Array.isArray(items)) {
      if (index < items.length) flatten(items[index], root, out, 0)
      else if (node['additionalItems'] !== undefined) flatten(node['additionalItems'], root, out, 0)
    } else if (items !== undefined) flatten(items, root, out, 0)
  }
  return out
}

/** Is the view `false` (no value passes)? */
export function forbidsEverything(view: SchemaView): boolean {
  return view.includes(NOTHING)
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const bb = b as unknown[]
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]))
  }
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}
