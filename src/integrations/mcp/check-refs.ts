import { resolveJsonPointer } from '../../validation/schema/json-pointer.ts'

// Keywords whose subschemas apply to a part of the value (a property, an item): a `$ref` cycle through one of them ends with the value.
const CONSUMING_MAPS = ['properties', 'patternProperties'] as const
const CONSUMING_SINGLES = [
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
] as const
// Keywords whose subschemas apply to the value itself: a cycle through these alone never ends.
const IN_PLACE_LISTS = ['allOf', 'anyOf', 'oneOf'] as const
const IN_PLACE_SINGLES = ['not', 'if', 'then', 'else'] as const
const DEFINITIONS = ['$defs', 'definitions'] as const

/**
 * Checks the references of a schema a server sent: every `$ref` is local (`#...`: nothing is ever
 * fetched) and resolves, no `$dynamicRef` or `$recursiveRef`, and no cycle of references and
 * in-place applicators (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`, `dependencies`)
 * that never reaches into the value, which a validator would follow forever. A recursive schema
 * through `properties` or `items` (a tree) is fine: the value's depth ends it. Nor may one subschema
 * apply more than `maxApplied` subschemas to one value, counted along every path of references and
 * in-place keywords: a 60-node chain of `allOf: [{$ref: next}, {$ref: next}]` applies 2^30 of them,
 * which would block the event loop on every call's validation.
 * Answers why the schema is refused, or `undefined`.
 */
export function checkRefs(root: Record<string, unknown>, maxApplied: number): string | undefined {
  const edges = new Map<object, object[]>()
  const at = new Map<object, string>()
  const stack: { node: unknown; pointer: string }[] = [{ node: root, pointer: '#' }]
  while (stack.length > 0) {
    const { node, pointer } = stack.pop() as { node: unknown; pointer: string }
    if (typeof node !== 'object' || node === null || Array.isArray(node) || at.has(node)) continue
    at.set(node, pointer)
    const schema = node as Record<string, unknown>
    const inPlace: { node: unknown; pointer: string }[] = []
    for (const key of ['$dynamicRef', '$recursiveRef']) if (key in schema) return `${quote(pointer)} uses ${key}, which is not followed`
    const ref = schema['$ref']
    if (ref !== undefined) {
      if (typeof ref !== 'string') return `${quote(pointer)} has a $ref that is not a string`
      if (!ref.startsWith('#')) return `${quote(pointer)} has a remote $ref ${quote(ref)} (references are never fetched)`
      const target = resolveJsonPointer(root, ref)
      if (target === undefined) return `${quote(pointer)} has a $ref ${quote(ref)} that does not resolve`
      inPlace.push({ node: target, pointer: ref })
    }
    for (const key of IN_PLACE_LISTS) {
      const list = schema[key]
      if (Array.isArray(list)) for (let i = 0; i < list.length; i++) inPlace.push({ node: list[i] as unknown, pointer: `${pointer}/${key}/${i}` })
    }
    for (const key of IN_PLACE_SINGLES) if (key in schema) inPlace.push({ node: schema[key], pointer: `${pointer}/${key}` })
    // `dependencies` (draft 7) holds a schema (applied in place, as `dependentSchemas`) or a list of names.
    for (const key of ['dependentSchemas', 'dependencies']) {
      const dependent = schema[key]
      if (isObject(dependent))
        for (const [name, child] of Object.entries(dependent)) if (isObject(child)) inPlace.push({ node: child, pointer: `${pointer}/${key}/${name}` })
    }
    edges.set(
      node,
      inPlace.map((e) => e.node).filter((n): n is object => typeof n === 'object' && n !== null),
    )
    stack.push(...inPlace)
    for (const key of [...CONSUMING_MAPS, ...DEFINITIONS]) {
      const map = schema[key]
      if (isObject(map)) for (const [name, child] of Object.entries(map)) stack.push({ node: child, pointer: `${pointer}/${key}/${name}` })
    }
    for (const key of CONSUMING_SINGLES) {
      const child = schema[key]
      if (Array.isArray(child)) for (let i = 0; i < child.length; i++) stack.push({ node: child[i] as unknown, pointer: `${pointer}/${key}/${i}` })
      else stack.push({ node: child, pointer: `${pointer}/${key}` })
    }
    const prefix = schema['prefixItems']
    if (Array.isArray(prefix)) for (let i = 0; i < prefix.length; i++) stack.push({ node: prefix[i] as unknown, pointer: `${pointer}/prefixItems/${i}` })
  }
  const cycle = findCycle(edges)
  if (cycle !== undefined) return `a cycle of $ref and in-place keywords at ${quote(at.get(cycle) ?? '#')} never reaches into the value`
  const heavy = overApplied(edges, maxApplied)
  return heavy === undefined
    ? undefined
    : `${quote(at.get(heavy) ?? '#')} applies more than ${maxApplied} subschemas to one value through $ref and in-place keywords (limits.maxNodes)`
}

/**
 * A node that applies more than `max` subschemas (itself included) to one value, counted along every
 * path of the graph, found without recursion; `undefined` when none does. The graph has no cycle.
 */
function overApplied(edges: ReadonlyMap<object, readonly object[]>, max: number): object | undefined {
  const applied = new Map<object, number>()
  for (const start of edges.keys()) {
    if (applied.has(start)) continue
    const path: { node: object; next: number; sum: number }[] = [{ node: start, next: 0, sum: 1 }]
    while (path.length > 0) {
      const top = path[path.length - 1] as { node: object; next: number; sum: number }
      const out = edges.get(top.node) ?? []
      if (top.next < out.length) {
        const child = out[top.next++] as object
        const known = applied.get(child)
        if (known === undefined) path.push({ node: child, next: 0, sum: 1 })
        else top.sum += known
        continue
      }
      if (top.sum > max) return top.node
      applied.set(top.node, top.sum)
      path.pop()
      const parent = path[path.length - 1]
      if (parent !== undefined) parent.sum += top.sum
    }
  }
  return undefined
}

/** A node on a cycle of the graph, found without recursion; `undefined` when it has none. */
function findCycle(edges: ReadonlyMap<object, readonly object[]>): object | undefined {
  const state = new Map<object, 'open' | 'done'>()
  for (const start of edges.keys()) {
    if (state.has(start)) continue
    const path: { node: object; next: number }[] = [{ node: start, next: 0 }]
    state.set(start, 'open')
    while (path.length > 0) {
      const top = path[path.length - 1] as { node: object; next: number }
      const out = edges.get(top.node) ?? []
      if (top.next >= out.length) {
        state.set(top.node, 'done')
        path.pop()
        continue
      }
      const child = out[top.next++] as object
      const seen = state.get(child)
      if (seen === 'open') return child
      if (seen === undefined) {
        state.set(child, 'open')
        path.push({ node: child, next: 0 })
      }
    }
  }
  return undefined
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)
}
