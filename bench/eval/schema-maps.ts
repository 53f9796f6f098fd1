import { resolveJsonPointer } from '../../src/validation/schema/json-pointer.ts'

/**
 * True when a map (an object-valued `additionalProperties` or a non-empty `patternProperties`) is
 * reachable from the schema's root, following local `$ref`s: such a schema must never compile into a
 * closed object. Only applicators are followed (a `links` or `not` subtree shapes no value).
 */
export function hasReachableMap(root: unknown): boolean {
  const seen = new Set<unknown>()
  const visit = (node: unknown): boolean => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return false
    seen.add(node)
    if (Array.isArray(node)) return node.some(visit)
    const schema = node as Record<string, unknown>
    const extra = schema['additionalProperties']
    if (typeof extra === 'object' && extra !== null && Object.keys(extra).some((k) => !['description', 'title'].includes(k))) return true
    const patterns = schema['patternProperties']
    if (typeof patterns === 'object' && patterns !== null && Object.keys(patterns).length > 0) return true
    const ref = schema['$ref']
    if (typeof ref === 'string' && ref.startsWith('#')) {
      const target = resolveJsonPointer(root, ref)
      if (visit(target)) return true
    }
    // Only the applicators the compiler descends into: other keywords (links, not, if...) hold no value shape.
    const properties = schema['properties']
    if (typeof properties === 'object' && properties !== null && Object.values(properties).some(visit)) return true
    return ['items', 'prefixItems', 'additionalItems', 'anyOf', 'oneOf', 'allOf'].some((key) => visit(schema[key]))
  }
  return visit(root)
}
