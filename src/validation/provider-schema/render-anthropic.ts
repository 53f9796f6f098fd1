import type { IrNode } from './ir.ts'
import { type DroppedConstraint, Uncompilable } from './types.ts'

type Json = Record<string, unknown>

/** String formats Anthropic's structured outputs document. */
const FORMATS: ReadonlySet<string> = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid'])
/** Regex features Anthropic documents as unsupported in `pattern`: backreferences, lookaround, word boundaries. */
const UNSUPPORTED_PATTERN = /\\[1-9]|\\k<|\(\?<?[=!]|\\[bB]/
/** Anthropic's documented limits across a strict schema. */
export const ANTHROPIC_LIMITS = { optionalProperties: 24, unions: 16 } as const

interface Tally {
  optional: number
  unions: number
}

function supported(keyword: string, value: unknown): boolean {
  if (keyword === 'format') return FORMATS.has(String(value))
  if (keyword === 'pattern') return typeof value === 'string' && !UNSUPPORTED_PATTERN.test(value)
  if (keyword === 'minItems') return value === 0 || value === 1
  return false
}

/**
 * The node's description with the keywords Anthropic cannot enforce appended (the model reads them;
 * the gate enforces them on the answer).
 */
function annotate(node: IrNode, schema: Json, dropped: DroppedConstraint[]): Json {
  const kept: Json = {}
  const moved: string[] = []
  for (const [keyword, value] of Object.entries(node.keywords)) {
    if (supported(keyword, value)) kept[keyword] = value
    else {
      dropped.push({ at: node.at, keyword })
      moved.push(`${keyword}: ${JSON.stringify(value)}`)
    }
  }
  const text = [node.description, moved.length > 0 ? `Constraints: ${moved.join('; ')}` : undefined].filter((t) => t !== undefined).join('\n\n')
  return { ...(text === '' ? {} : { description: text }), ...schema, ...kept }
}

function render(node: IrNode, dropped: DroppedConstraint[], tally: Tally): Json {
  switch (node.kind) {
    case 'primitive':
      return annotate(node, { type: node.type }, dropped)
    case 'enum':
      if (node.values.some((v) => typeof v === 'object' && v !== null))
        throw new Uncompilable('an enum of objects or arrays (Anthropic takes primitives only)', node.at)
      return annotate(node, { enum: node.values }, dropped)
    case 'array':
      return annotate(node, { type: 'array', items: render(node.items, dropped, tally) }, dropped)
    case 'object': {
      tally.optional += node.properties.filter(([name]) => !node.required.has(name)).length
      const properties = Object.fromEntries(node.properties.map(([name, child]) => [name, render(child, dropped, tally)]))
      const required = node.properties.map(([name]) => name).filter((name) => node.required.has(name))
      return annotate(node, { type: 'object', properties, required, additionalProperties: false }, dropped)
    }
    case 'union':
      tally.unions++
      return annotate(node, { anyOf: node.branches.map((b) => render(b, dropped, tally)) }, dropped)
  }
}

/**
 * The Anthropic structured-output rendering: objects closed, optional properties kept optional,
 * keywords outside the documented subset moved into the description, within the documented counts
 * of optional properties and unions. Values travel unchanged both ways.
 */
export function renderAnthropic(root: IrNode, dropped: DroppedConstraint[]): Json {
  const tally: Tally = { optional: 0, unions: 0 }
  const schema = render(root, dropped, tally)
  if (tally.optional > ANTHROPIC_LIMITS.optionalProperties)
    throw new Uncompilable(`${tally.optional} optional properties; Anthropic allows ${ANTHROPIC_LIMITS.optionalProperties}`, '')
  if (tally.unions > ANTHROPIC_LIMITS.unions) throw new Uncompilable(`${tally.unions} unions; Anthropic allows ${ANTHROPIC_LIMITS.unions}`, '')
  return schema
}
