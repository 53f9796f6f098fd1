import type { IrNode } from './ir.ts'
import { type DroppedConstraint, Uncompilable } from './types.ts'

type Json = Record<string, unknown>

/** The `responseSchema` (OpenAPI 3.0 subset) keywords Gemini documents, per node kind. */
const SUPPORTED: Readonly<Record<string, readonly string[]>> = {
  string: ['pattern', 'minLength', 'maxLength', 'format'],
  number: ['minimum', 'maximum'],
  array: ['minItems', 'maxItems'],
  object: ['minProperties', 'maxProperties'],
}
/** The one string format the Gemini Developer API accepts besides `enum`. */
const FORMATS: ReadonlySet<string> = new Set(['date-time'])
const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'STRING',
  number: 'NUMBER',
  integer: 'INTEGER',
  boolean: 'BOOLEAN',
  array: 'ARRAY',
  object: 'OBJECT',
}

function keep(node: IrNode, group: string, dropped: DroppedConstraint[]): Json {
  const out: Json = {}
  for (const [keyword, value] of Object.entries(node.keywords)) {
    const fits = (SUPPORTED[group] ?? []).includes(keyword) && (keyword !== 'format' || FORMATS.has(String(value)))
    if (fits) out[keyword] = value
    else dropped.push({ at: node.at, keyword })
  }
  return out
}

const described = (node: IrNode, schema: Json): Json => (node.description === undefined ? schema : { description: node.description, ...schema })

/** An enum Gemini can list (strings) or, for other values, the types they have (the enum left to the gate). */
function enumOf(node: IrNode & { kind: 'enum' }, dropped: DroppedConstraint[]): Json {
  const values = node.values.filter((v) => v !== null)
  const nullable = values.length < node.values.length ? { nullable: true } : {}
  if (values.length === 0) throw new Uncompilable('a null-only schema (Gemini has no null type)', node.at)
  if (values.every((v) => typeof v === 'string')) return described(node, { type: 'STRING', format: 'enum', enum: values, ...nullable })
  if (values.some((v) => typeof v === 'object')) throw new Uncompilable('an enum of objects or arrays', node.at)
  dropped.push({ at: node.at, keyword: 'enum' })
  const types = [...new Set(values.map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v)))]
  const merged = types.includes('number') ? types.filter((t) => t !== 'integer') : types
  if (merged.length === 1) return described(node, { type: TYPE_NAMES[merged[0] as string], ...nullable })
  return described(node, { anyOf: merged.map((t) => ({ type: TYPE_NAMES[t], ...nullable })) })
}

function render(node: IrNode, dropped: DroppedConstraint[]): Json {
  switch (node.kind) {
    case 'primitive': {
      if (node.type === 'null') throw new Uncompilable('a null-only schema (Gemini has no null type)', node.at)
      const group = node.type === 'integer' ? 'number' : node.type
      return described(node, { type: TYPE_NAMES[node.type], ...keep(node, group, dropped) })
    }
    case 'enum':
      return enumOf(node, dropped)
    case 'array':
      return described(node, { type: 'ARRAY', items: render(node.items, dropped), ...keep(node, 'array', dropped) })
    case 'object': {
      if (node.properties.length === 0) throw new Uncompilable('an object without properties (Gemini requires some)', node.at)
      const names = node.properties.map(([name]) => name)
      const properties = Object.fromEntries(node.properties.map(([name, child]) => [name, render(child, dropped)]))
      const required = names.filter((name) => node.required.has(name))
      return described(node, { type: 'OBJECT', properties, required, propertyOrdering: names, ...keep(node, 'object', dropped) })
    }
    case 'union': {
      // Gemini marks null with `nullable`, not a member: a null member makes the others nullable.
      const others = node.branches.filter((b) => !(b.kind === 'primitive' && b.type === 'null'))
      const nullable = others.length < node.branches.length
      const rendered = others.map((b) => render(b, dropped)).map((s) => (nullable ? { ...s, nullable: true } : s))
      if (rendered.length === 1) return described(node, rendered[0] as Json)
      return described(node, { anyOf: rendered })
    }
  }
}

/**
 * The Gemini `responseSchema` rendering (OpenAPI 3.0 subset): upper-case types, `nullable` for null,
 * no `additionalProperties` (Gemini emits the declared properties only), `propertyOrdering` in the
 * declared order, string enums; other keywords dropped for the gate. Values travel unchanged.
 */
export function renderGemini(root: IrNode, dropped: DroppedConstraint[]): Json {
  return render(root, dropped)
}
