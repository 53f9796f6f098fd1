import type { JsonSchema } from '../../model/request.ts'
import { isRecord } from '../../model/is-record.ts'
import { resolveJsonPointer } from '../../validation/schema/json-pointer.ts'

/** A schema node flattened for generation: `$ref` followed, `allOf` merged, the first `anyOf`/`oneOf` branch taken. */
export type SchemaNode = Readonly<Record<string, unknown>>

/** The kinds of value the generator knows how to produce. */
export type ValueKind = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'any'

// Cyclic `$ref`s (a definition that only points at itself) must not hang the simulator.
const MAX_RESOLVE_DEPTH = 32

/**
 * Flattens `schema` against `root`: follows local `$ref`s (`#/$defs/...`, `#/definitions/...`),
 * merges `allOf` branches, and takes the first `anyOf`/`oneOf` branch, so that every value the
 * generator builds from the result is valid for the original.
 */
export function resolveSchema(schema: unknown, root: JsonSchema, depth = 0): SchemaNode {
  if (!isRecord(schema) || depth > MAX_RESOLVE_DEPTH) return {}
  let node: Record<string, unknown> = { ...schema }
  if (typeof node['$ref'] === 'string') {
    const { $ref, ...siblings } = node
    node = { ...resolveSchema(resolveJsonPointer(root, $ref as string), root, depth + 1), ...siblings }
  }
  const branches = node['anyOf'] ?? node['oneOf']
  if (Array.isArray(branches) && branches.length > 0) {
    const { anyOf: _a, oneOf: _o, ...siblings } = node
    node = merge(siblings, resolveSchema(branches[0], root, depth + 1))
  }
  if (Array.isArray(node['allOf'])) {
    const { allOf, ...siblings } = node
    node = (allOf as unknown[]).reduce<Record<string, unknown>>((acc, branch) => merge(acc, resolveSchema(branch, root, depth + 1)), siblings)
  }
  return node
}

/** What kind of value `node` asks for, inferred from its keywords when `type` is absent. */
export function kindOf(node: SchemaNode): ValueKind {
  const type = node['type']
  const declared = Array.isArray(type) ? (type.find((t) => t !== 'null') ?? type[0]) : type
  if (typeof declared === 'string' && isKind(declared)) return declared
  if ('properties' in node || 'required' in node || 'additionalProperties' in node) return 'object'
  if ('items' in node || 'prefixItems' in node) return 'array'
  if ('minimum' in node || 'maximum' in node || 'multipleOf' in node) return 'number'
  if ('format' in node || 'pattern' in node || 'minLength' in node || 'maxLength' in node) return 'string'
  return 'any'
}

/** The schema of one child (`segment`) of a value described by `node`, or `undefined` when the schema does not describe it. */
export function childSchema(node: SchemaNode, segment: string | number, root: JsonSchema): SchemaNode | undefined {
  if (typeof segment === 'number') {
    const prefix = node['prefixItems'] ?? (Array.isArray(node['items']) ? node['items'] : undefined)
    if (Array.isArray(prefix) && segment < prefix.length) return resolveSchema(prefix[segment], root)
    const items = node['items']
    return isRecord(items) ? resolveSchema(items, root) : undefined
  }
  const properties = node['properties']
  if (isRecord(properties) && Object.hasOwn(properties, segment)) return resolveSchema(properties[segment], root)
  const additional = node['additionalProperties']
  return isRecord(additional) ? resolveSchema(additional, root) : undefined
}

/** The names listed in `required`. */
export function requiredOf(node: SchemaNode): readonly string[] {
  const required = node['required']
  return Array.isArray(required) ? required.filter((k): k is string => typeof k === 'string') : []
}

/** The `properties` map, empty when there is none. */
export function propertiesOf(node: SchemaNode): Readonly<Record<string, unknown>> {
  const properties = node['properties']
  return isRecord(properties) ? properties : {}
}

/** Merges two object schemas so that both sets of properties and requirements hold. */
function merge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...a, ...b }
  if (isRecord(a['properties']) && isRecord(b['properties'])) merged['properties'] = { ...a['properties'], ...b['properties'] }
  if (Array.isArray(a['required']) && Array.isArray(b['required'])) merged['required'] = [...new Set([...a['required'], ...b['required']])]
  return merged
}

function isKind(type: string): type is ValueKind {
  return ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'].includes(type)
}
