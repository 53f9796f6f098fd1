import { arrayCodec, type Codec, objectCodec, type PropertyCodec, rootWrapCodec, unionCodec } from './codec.ts'
import { isRecord } from '../../model/is-record.ts'
import { acceptsNull, type IrNode, type IrObject, kindsOf } from './ir.ts'
import { type DroppedConstraint, Uncompilable } from './types.ts'

type Json = Record<string, unknown>

/** Formats OpenAI strict mode documents for strings. */
const FORMATS: ReadonlySet<string> = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'])
/** The assertion keywords OpenAI strict mode documents, per node kind. */
const SUPPORTED: Readonly<Record<string, readonly string[]>> = {
  string: ['pattern', 'format'],
  number: ['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'],
  array: ['minItems', 'maxItems'],
  object: [],
}
/** OpenAI's documented limits on a strict schema. */
export const OPENAI_LIMITS = { depth: 10, properties: 5000, enumValues: 1000, stringChars: 120_000 } as const

export interface Rendered {
  readonly schema: Json
  readonly codec: Codec | undefined
}

function keep(node: IrNode, group: string, dropped: DroppedConstraint[]): Json {
  const out: Json = {}
  for (const [keyword, value] of Object.entries(node.keywords)) {
    const supported = (SUPPORTED[group] ?? []).includes(keyword)
    const fits = keyword === 'format' ? FORMATS.has(String(value)) : keyword.startsWith('exclusive') ? typeof value === 'number' : true
    if (supported && fits) out[keyword] = value
    else dropped.push({ at: node.at, keyword })
  }
  return out
}

const withDescription = (node: IrNode, schema: Json): Json => (node.description === undefined ? schema : { description: node.description, ...schema })

/** `schema` that also accepts `null`, the compiled stand-in for an absent optional property. */
function nullable(schema: Json): Json {
  // A type list only for scalars (OpenAI's documented form); objects and arrays take an anyOf member.
  const type = schema['type']
  if (typeof type === 'string' && type !== 'object' && type !== 'array') return { ...schema, type: [type, 'null'] }
  if (Array.isArray(schema['enum'])) return { ...schema, enum: [...schema['enum'], null] }
  return { anyOf: [schema, { type: 'null' }] }
}

/**
 * What a present `null` travels as for an optional property that refuses null: a value of a JSON
 * kind the property has none of (the compiled schema refuses it too, and it maps back to `null`), so
 * a refused value never maps back to an accepted one. `undefined` when the property takes both
 * objects and arrays: it is then carried as `{ value }`.
 */
function nullAs(child: IrNode): readonly unknown[] | Readonly<Record<string, unknown>> | undefined {
  const kinds = kindsOf(child)
  if (!kinds.has('array')) return [null]
  if (!kinds.has('object')) return { value: null }
  return undefined
}

function objectOf(node: IrObject, dropped: DroppedConstraint[]): Rendered {
  const properties: [string, Json][] = []
  const codecs: PropertyCodec[] = []
  for (const [name, child] of node.properties) {
    const rendered = render(child, dropped)
    if (node.required.has(name)) {
      properties.push([name, rendered.schema])
      codecs.push({ name, mode: 'as-is', codec: rendered.codec })
    } else if (!acceptsNull(child) && nullAs(child) !== undefined) {
      properties.push([name, nullable(rendered.schema)])
      codecs.push({ name, mode: 'null-for-absent', codec: rendered.codec, nullAs: nullAs(child) as readonly unknown[] })
    } else {
      // null is a value here (or no kind is free for it): absent becomes null, a present value travels as { value }.
      const box = { type: 'object', properties: { value: rendered.schema }, required: ['value'], additionalProperties: false }
      properties.push([name, { anyOf: [{ type: 'null' }, box] }])
      codecs.push({ name, mode: 'wrapped', codec: rendered.codec })
    }
  }
  for (const keyword of Object.keys(node.keywords)) dropped.push({ at: node.at, keyword })
  const schema = { type: 'object', properties: Object.fromEntries(properties), required: properties.map(([name]) => name), additionalProperties: false }
  return { schema: withDescription(node, schema), codec: objectCodec(codecs) }
}

function render(node: IrNode, dropped: DroppedConstraint[]): Rendered {
  switch (node.kind) {
    case 'primitive': {
      const group = node.type === 'integer' ? 'number' : node.type
      return { schema: withDescription(node, { type: node.type, ...keep(node, group, dropped) }), codec: undefined }
    }
    case 'enum':
      if (node.values.some((v) => typeof v === 'object' && v !== null)) throw new Uncompilable('an enum of objects or arrays', node.at)
      return { schema: withDescription(node, { enum: node.values }), codec: undefined }
    case 'array': {
      const items = render(node.items, dropped)
      return { schema: withDescription(node, { type: 'array', items: items.schema, ...keep(node, 'array', dropped) }), codec: arrayCodec(items.codec) }
    }
    case 'object':
      return objectOf(node, dropped)
    case 'union':
      return unionOf(node.branches, node, dropped)
  }
}

/**
 * The property every object member requires as an enum (or const) whose values no other member
 * shares: it tells the member of a value and of an answer apart, both ways. `undefined` if none.
 */
function discriminator(members: readonly IrObject[]): { readonly name: string; readonly values: readonly (readonly string[])[] } | undefined {
  for (const [name] of members[0]?.properties ?? []) {
    const lists = members.map((m) => {
      const child = m.properties.find(([n]) => n === name)?.[1]
      return m.required.has(name) && child?.kind === 'enum' ? child.values.map((v) => JSON.stringify(v)) : undefined
    })
    const all = lists.flatMap((l) => l ?? [])
    if (lists.every((l) => l !== undefined) && new Set(all).size === all.length) return { name, values: lists as string[][] }
  }
  return undefined
}

/** The codec of object members told apart by a discriminator property. */
function discriminatedCodec(name: string, values: readonly (readonly string[])[], codecs: readonly (Codec | undefined)[]): Codec {
  const memberOf = (value: unknown) => {
    if (!isRecord(value) || !Object.hasOwn(value, name)) return undefined
    const key = JSON.stringify(value[name])
    return codecs[values.findIndex((list) => list.includes(key))]
  }
  return {
    forward: (value) => memberOf(value)?.forward(value) ?? value,
    back: (value) => memberOf(value)?.back(value) ?? value,
  }
}

function unionOf(branches: readonly IrNode[], node: IrNode, dropped: DroppedConstraint[]): Rendered {
  const rendered = branches.map((b) => render(b, dropped))
  const byKind = new Map<string, Codec>()
  const objects = branches.flatMap((b, i) => (kindsOf(b).has('object') ? [i] : []))
  const handled = new Set<number>()
  if (objects.length > 1 && objects.some((i) => rendered[i]?.codec !== undefined)) {
    // Object members that map absent properties share the object type: a discriminator must tell them apart.
    const members = objects.map((i) => branches[i] as IrNode)
    const found = members.every((m) => m.kind === 'object') ? discriminator(members as IrObject[]) : undefined
    if (found === undefined)
      throw new Uncompilable('a union of object members where absent properties map to null and no required enum property tells them apart', node.at)
    byKind.set(
      'object',
      discriminatedCodec(
        found.name,
        found.values,
        objects.map((i) => rendered[i]?.codec),
      ),
    )
    for (const i of objects) handled.add(i)
  }
  rendered.forEach((r, i) => {
    if (r.codec === undefined || handled.has(i)) return
    const own = kindsOf(branches[i] as IrNode)
    const shared = branches.some((other, j) => j !== i && [...kindsOf(other)].some((k) => own.has(k)))
    if (shared) throw new Uncompilable('a union of members of one JSON type where absent properties map to null: the member of an answer is ambiguous', node.at)
    for (const kind of own) byKind.set(kind, r.codec)
  })
  return { schema: withDescription(node, { anyOf: rendered.map((r) => r.schema) }), codec: unionCodec(byKind) }
}

/**
 * The OpenAI strict-mode rendering: every property required (an optional one as nullable, `null`
 * standing for absent), every object closed, only documented keywords, a root that is an object
 * (any other root travels as `{ value }`), within the documented size and depth limits.
 */
export function renderOpenAIStrict(root: IrNode, dropped: DroppedConstraint[]): Rendered {
  const inner = render(root, dropped)
  const rendered: Rendered =
    root.kind === 'object'
      ? inner
      : { schema: { type: 'object', properties: { value: inner.schema }, required: ['value'], additionalProperties: false }, codec: rootWrapCodec(inner.codec) }
  checkLimits(rendered.schema)
  return rendered
}

function checkLimits(schema: Json): void {
  const tally = { properties: 0, enumValues: 0, chars: 0, depth: 0 }
  const walk = (node: unknown, depth: number): void => {
    if (typeof node !== 'object' || node === null) return
    if (Array.isArray(node)) {
      for (const n of node) walk(n, depth)
      return
    }
    const json = node as Json
    const isObject = json['type'] === 'object'
    const level = isObject ? depth + 1 : depth
    tally.depth = Math.max(tally.depth, level)
    if (Array.isArray(json['enum'])) {
      tally.enumValues += json['enum'].length
      for (const v of json['enum']) if (typeof v === 'string') tally.chars += v.length
    }
    const properties = json['properties']
    if (typeof properties === 'object' && properties !== null) {
      for (const [name, child] of Object.entries(properties)) {
        tally.properties++
        tally.chars += name.length
        walk(child, level)
      }
    }
    walk(json['items'], level)
    walk(json['anyOf'], depth)
  }
  walk(schema, 0)
  if (tally.depth > OPENAI_LIMITS.depth) throw new Uncompilable(`objects nested ${tally.depth} deep; OpenAI strict mode allows ${OPENAI_LIMITS.depth}`, '')
  if (tally.properties > OPENAI_LIMITS.properties)
    throw new Uncompilable(`${tally.properties} properties; OpenAI strict mode allows ${OPENAI_LIMITS.properties}`, '')
  if (tally.enumValues > OPENAI_LIMITS.enumValues)
    throw new Uncompilable(`${tally.enumValues} enum values; OpenAI strict mode allows ${OPENAI_LIMITS.enumValues}`, '')
  if (tally.chars > OPENAI_LIMITS.stringChars)
    throw new Uncompilable(`${tally.chars} characters of names and enum values; OpenAI allows ${OPENAI_LIMITS.stringChars}`, '')
}
