import type { JsonSchema } from '../../model/request.ts'
import { isRecord } from '../../model/is-record.ts'
import { childSchema, requiredOf, type SchemaNode } from './schema.ts'
import type { Segment } from './value-path.ts'

/** One node of a value, with the schema that describes it. */
export interface ValueNode {
  readonly path: readonly Segment[]
  readonly value: unknown
  readonly schema: SchemaNode
  /** Whether the parent object's schema lists this property in `required`. */
  readonly required: boolean
}

/** Every node of `value` that the schema describes, parents before children, in key order. */
export function walkValue(value: unknown, schema: SchemaNode, root: JsonSchema): ValueNode[] {
  const nodes: ValueNode[] = []
  const visit = (current: unknown, node: SchemaNode, path: readonly Segment[], required: boolean): void => {
    nodes.push({ path, value: current, schema: node, required })
    if (Array.isArray(current)) {
      current.forEach((item, index) => {
        const child = childSchema(node, index, root)
        if (child !== undefined) visit(item, child, [...path, index], false)
      })
    } else if (isRecord(current)) {
      const requiredKeys = requiredOf(node)
      for (const [key, item] of Object.entries(current)) {
        const child = childSchema(node, key, root)
        if (child !== undefined) visit(item, child, [...path, key], requiredKeys.includes(key))
      }
    }
  }
  visit(value, schema, [], false)
  return nodes
}
