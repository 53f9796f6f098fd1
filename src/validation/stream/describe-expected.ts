import type { SchemaView } from './schema-view.ts'

/**
 * What a view expects, for a violation's reason: its enum or const values, else its declared type.
 *
 * @example
 * describeExpected([{ enum: ['refund', 'reject'] }]) // 'one of "refund", "reject"'
 */
export function describeExpected(view: SchemaView): string {
  for (const node of view) {
    if (Array.isArray(node['enum'])) return `one of ${node['enum'].map((m) => JSON.stringify(m)).join(', ')}`
    if ('const' in node) return JSON.stringify(node['const'])
    if (node['type'] !== undefined) return Array.isArray(node['type']) ? node['type'].join(' or ') : String(node['type'])
    const branches = (node['anyOf'] ?? node['oneOf']) as unknown[] | undefined
    if (Array.isArray(branches) && branches.every((b) => typeof b === 'object' && b !== null && 'const' in b)) {
      return `one of ${branches.map((b) => JSON.stringify((b as Record<string, unknown>)['const'])).join(', ')}`
    }
  }
  return 'a different value'
}
