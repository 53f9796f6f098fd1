import type { ProviderTarget } from '../../src/validation/building-blocks.ts'

/*
 * The providers' documented schema rules that make them answer 400 to a structured-output request
 * (docs/provider-schemas.md has the sources): a schema sent that breaks one is refused, not decoded.
 * Only the documented, checkable ones; Gemini's `responseJsonSchema` documents no refusal to check.
 */

const OPENAI_UNSUPPORTED = [
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
  'minLength',
  'maxLength',
  'uniqueItems',
  'minProperties',
  'maxProperties',
]
const ANTHROPIC_UNSUPPORTED = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'maxItems']

/** The first documented rule of `target` that `schema` breaks, or `undefined` (also for Gemini, which documents none). */
export function providerRuleBreak(target: ProviderTarget, schema: unknown): string | undefined {
  if (target === 'gemini') return undefined
  if (target === 'openai-strict' && !(isRecord(schema) && schema['type'] === 'object')) return 'root is not an object'
  const seen = new Set<unknown>()
  const visit = (node: unknown): string | undefined => {
    if (!isRecord(node) || seen.has(node)) return undefined
    seen.add(node)
    const unsupported = target === 'openai-strict' ? OPENAI_UNSUPPORTED : ANTHROPIC_UNSUPPORTED
    for (const key of unsupported) if (key in node) return `unsupported keyword ${key}`
    if (target === 'anthropic' && typeof node['minItems'] === 'number' && node['minItems'] > 1) return 'minItems above 1'
    const type = node['type']
    const isObject = type === 'object' || (Array.isArray(type) && type.includes('object')) || isRecord(node['properties'])
    if (isObject) {
      if (node['additionalProperties'] !== false) return 'an object without additionalProperties: false'
      const properties = isRecord(node['properties']) ? Object.keys(node['properties']) : []
      const required = Array.isArray(node['required']) ? node['required'] : []
      if (target === 'openai-strict' && properties.some((p) => !required.includes(p))) return 'a property not in required'
    }
    for (const key of ['properties', '$defs', 'definitions'])
      if (isRecord(node[key]))
        for (const child of Object.values(node[key])) {
          const b = visit(child)
          if (b) return b
        }
    for (const key of ['items', 'additionalProperties']) {
      const b = visit(node[key])
      if (b) return b
    }
    for (const key of ['anyOf', 'oneOf', 'allOf'])
      if (Array.isArray(node[key]))
        for (const child of node[key]) {
          const b = visit(child)
          if (b) return b
        }
    return undefined
  }
  return visit(schema)
}

function isRecord(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
