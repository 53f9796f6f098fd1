import { isRecord } from '../../model/is-record.ts'
import { type IrNode, jsonKind, type Primitive, pointer } from './ir.ts'
import { ALWAYS_DROPPED, ARRAY_SHAPE, hasAssertions, OBJECT_SHAPE, TYPE_KEYWORDS } from './keyword-groups.ts'
import { mergeSchemas } from './merge-schemas.ts'
import { asSchema, resolveSchema } from './resolve-schema.ts'
import { type DroppedConstraint, type Narrowing, Uncompilable } from './types.ts'

type Schema = Readonly<Record<string, unknown>>

/** What a compile collects on its way through the original schema. */
export interface IrContext {
  readonly root: unknown
  readonly dropped: DroppedConstraint[]
  readonly narrowed: Narrowing[]
  nodes: number
}

/** Nesting beyond this is refused before any provider's own (smaller) limit is checked. */
const MAX_DEPTH = 64
/** Nodes visited (with `$ref`s inlined) beyond this are refused: inlining a wide DAG can explode. */
const MAX_NODES = 20_000
/** Keywords whose subschemas evaluate properties for `unevaluatedProperties` and that the compiler does not merge. */
const IN_PLACE_EVALUATORS: readonly string[] = ['if', 'then', 'else', 'dependentSchemas', 'dependencies']
const TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array'])

/** The node's keywords among `names`, as the IR carries them. */
function pick(schema: Schema, names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.filter((name) => Object.hasOwn(schema, name)).map((name) => [name, schema[name]]))
}

function matchesType(value: unknown, type: string): boolean {
  if (type === 'integer') return typeof value === 'number' && Number.isInteger(value)
  return jsonKind(value) === type
}

/** Where a node of the original schema sits: its JSON pointer, the `$ref`s followed to reach it (a cycle among them is refused) and its nesting depth. */
export interface IrPlace {
  readonly at: string
  readonly refs: readonly string[]
  readonly depth: number
}

/** Where the compile starts: the root of the original schema. */
export const ROOT_PLACE: IrPlace = { at: '', refs: [], depth: 0 }

/** The original schema (or one node of it, at `place`) as the compiler's intermediate form. */
export function toIr(ctx: IrContext, node: unknown, place: IrPlace): IrNode {
  const { at, depth } = place
  if (depth > MAX_DEPTH) throw new Uncompilable(`nested deeper than ${MAX_DEPTH} levels`, at)
  if (++ctx.nodes > MAX_NODES) throw new Uncompilable(`more than ${MAX_NODES} schema nodes once $refs are inlined`, at)
  const resolved = resolveSchema(ctx.root, node, at, place.refs)
  const { schema } = resolved
  const here = { ...resolved, depth }
  for (const keyword of ALWAYS_DROPPED) if (Object.hasOwn(schema, keyword)) ctx.dropped.push({ at: here.at, keyword })
  const union = schema['anyOf'] ?? schema['oneOf']
  if (union !== undefined) return unionIr(ctx, schema, here)
  if (Object.hasOwn(schema, 'enum') || Object.hasOwn(schema, 'const')) return enumIr(ctx, schema, here)
  const type = schema['type'] ?? inferType(ctx, schema, here.at)
  if (Array.isArray(type)) {
    if (type.length === 0) throw new Uncompilable('an empty type list accepts nothing', here.at)
    if (type.length === 1) return typedIr(ctx, schema, type[0], here)
    const branches = type.map((t) => typedIr(ctx, schema, t, here))
    return { kind: 'union', at: here.at, description: describe(schema), keywords: {}, branches }
  }
  return typedIr(ctx, schema, type, here)
}

function describe(schema: Schema): string | undefined {
  return typeof schema['description'] === 'string' ? schema['description'] : undefined
}

/** A node without `type` is given the one type its keywords describe (a narrowing, reported). */
// `format` alone says nothing of the type: formats name numbers too (`int32`, `double`, a user's
// `positiveInteger`), and a node with a format and no type accepts any value (MaskBench
// Github_easy---o63378: `{ format: 'positiveInteger' }` holding 1 was narrowed to a string).
const INFERS_STRING: readonly string[] = TYPE_KEYWORDS.string.filter((keyword) => keyword !== 'format')

function inferType(ctx: IrContext, schema: Schema, at: string): string {
  const says = (names: readonly string[]) => names.some((name) => Object.hasOwn(schema, name))
  const candidates = [
    says(OBJECT_SHAPE) ? 'object' : undefined,
    says(ARRAY_SHAPE) ? 'array' : undefined,
    says(INFERS_STRING) ? 'string' : undefined,
    says(TYPE_KEYWORDS.number) ? 'number' : undefined,
  ].filter((t) => t !== undefined)
  if (candidates.length !== 1) throw new Uncompilable('any JSON value (no type): no target can describe it', at)
  ctx.narrowed.push({ at, what: 'inferred-type' })
  return candidates[0] as string
}

function unionIr(ctx: IrContext, schema: Schema, here: IrPlace): IrNode {
  if (Object.hasOwn(schema, 'anyOf') && Object.hasOwn(schema, 'oneOf')) throw new Uncompilable('both anyOf and oneOf on one node', here.at)
  const keyword = Object.hasOwn(schema, 'anyOf') ? 'anyOf' : 'oneOf'
  const members = schema[keyword]
  if (!Array.isArray(members) || members.length === 0) throw new Uncompilable(`${keyword} is not a non-empty array`, here.at)
  if (keyword === 'oneOf' && members.length > 1) ctx.dropped.push({ at: here.at, keyword: 'oneOf' })
  const { anyOf: _, oneOf: __, not: ___, if: ____, then: _____, else: ______, ...base } = schema
  // Keywords beside the union apply to every member: each member is merged with them (exact).
  const shared = hasAssertions(base)
  const branches = members.map((member, i) => {
    const at = pointer(here.at, keyword, i)
    const resolved = resolveSchema(ctx.root, member, at, here.refs)
    const merged = shared ? mergeSchemas(base, resolved.schema, at) : resolved.schema
    return toIr(ctx, merged, { at: resolved.at, refs: resolved.refs, depth: here.depth + 1 })
  })
  const flat = branches.flatMap((b) => (b.kind === 'union' ? b.branches : [b]))
  if (flat.length === 1) return flat[0] as IrNode
  return { kind: 'union', at: here.at, description: describe(schema), keywords: {}, branches: flat }
}

function enumIr(ctx: IrContext, schema: Schema, here: IrPlace): IrNode {
  let values: unknown[] = Object.hasOwn(schema, 'const') ? [schema['const']] : []
  if (Object.hasOwn(schema, 'enum')) {
    const listed = schema['enum']
    if (!Array.isArray(listed)) throw new Uncompilable('enum is not an array', here.at)
    values = Object.hasOwn(schema, 'const') ? values.filter((v) => listed.some((l) => JSON.stringify(l) === JSON.stringify(v))) : [...listed]
  }
  const type = schema['type']
  if (type !== undefined) {
    const types = Array.isArray(type) ? type.map(String) : [String(type)]
    values = values.filter((v) => types.some((t) => matchesType(v, t) || (t === 'number' && typeof v === 'number')))
  }
  if (values.length === 0) throw new Uncompilable('enum/const leaves no value: the schema accepts nothing', here.at)
  // Other assertions on an enum only remove listed values: the gate checks them.
  for (const group of Object.values(TYPE_KEYWORDS)) for (const keyword of group) if (Object.hasOwn(schema, keyword)) ctx.dropped.push({ at: here.at, keyword })
  return { kind: 'enum', at: here.at, description: describe(schema), keywords: {}, values }
}

function typedIr(ctx: IrContext, schema: Schema, type: unknown, here: IrPlace): IrNode {
  if (typeof type !== 'string' || !TYPES.has(type)) throw new Uncompilable(`unknown type ${JSON.stringify(type)}`, here.at)
  if (type === 'object') return objectIr(ctx, schema, here)
  if (type === 'array') return arrayIr(ctx, schema, here)
  const group = type === 'string' ? TYPE_KEYWORDS.string : type === 'number' || type === 'integer' ? TYPE_KEYWORDS.number : []
  return { kind: 'primitive', type: type as Primitive, at: here.at, description: describe(schema), keywords: pick(schema, group) }
}

function objectIr(ctx: IrContext, schema: Schema, here: IrPlace): IrNode {
  const patterns = schema['patternProperties']
  if (isRecord(patterns) && Object.keys(patterns).length > 0) throw new Uncompilable('a map (patternProperties): closing it would change meaning', here.at)
  const extra = schema['additionalProperties'] ?? schema['unevaluatedProperties']
  if (isRecord(extra) && hasAssertions(extra)) throw new Uncompilable('a map (object-valued additionalProperties): closing it would change meaning', here.at)
  const closed = extra === false
  // `unevaluatedProperties` also admits what `if`/`then`/`else` and `dependentSchemas` evaluate: closing
  // the object to `properties` alone would refuse those (`{}` the only value left), so it is refused.
  if (closed && !Object.hasOwn(schema, 'additionalProperties') && IN_PLACE_EVALUATORS.some((keyword) => Object.hasOwn(schema, keyword)))
    throw new Uncompilable('unevaluatedProperties beside if/then/else or dependentSchemas: the properties they admit cannot be declared', here.at)
  const declared = schema['properties'] ?? {}
  if (!isRecord(declared)) throw new Uncompilable('properties is not an object', here.at)
  const names = Object.keys(declared)
  if (!closed && names.length === 0) throw new Uncompilable('a free-form object (no declared properties): closing it would leave only {}', here.at)
  if (!closed) ctx.narrowed.push({ at: here.at, what: 'closed-object' })
  const required = schema['required'] ?? []
  if (!Array.isArray(required)) throw new Uncompilable('required is not an array', here.at)
  for (const name of required)
    if (typeof name !== 'string' || !Object.hasOwn(declared, name)) throw new Uncompilable(`required property ${JSON.stringify(name)} is not declared`, here.at)
  const properties = names.map((name): readonly [string, IrNode] => {
    const at = pointer(here.at, 'properties', name)
    asSchema(declared[name], at)
    return [name, toIr(ctx, declared[name], { at, refs: here.refs, depth: here.depth + 1 })]
  })
  return {
    kind: 'object',
    at: here.at,
    description: describe(schema),
    keywords: pick(schema, TYPE_KEYWORDS.object),
    properties,
    required: new Set(required as string[]),
  }
}

function arrayIr(ctx: IrContext, schema: Schema, here: IrPlace): IrNode {
  const items = schema['items']
  if (Array.isArray(items) || Object.hasOwn(schema, 'prefixItems')) throw new Uncompilable('a tuple (prefixItems or an items array)', here.at)
  if (items === undefined || (isRecord(items) && !hasAssertions(items)) || items === true)
    throw new Uncompilable('an array of any JSON value (no items schema)', here.at)
  const node = toIr(ctx, items, { at: pointer(here.at, 'items'), refs: here.refs, depth: here.depth + 1 })
  return { kind: 'array', at: here.at, description: describe(schema), keywords: pick(schema, TYPE_KEYWORDS.array), items: node }
}
