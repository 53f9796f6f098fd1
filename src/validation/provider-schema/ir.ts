/**
 * The compiler's intermediate form: the original schema with `$ref`s followed, `allOf` merged,
 * `type` arrays and `anyOf`/`oneOf` turned into unions, and each node tagged with the one JSON type
 * it describes. Every target renders from it.
 */
export type Primitive = 'string' | 'number' | 'integer' | 'boolean' | 'null'

interface IrBase {
  /** JSON Pointer of the node in the original schema (after `$ref`s are followed). */
  readonly at: string
  readonly description?: string | undefined
  /** The node's assertion keywords that apply to its type, for the target to keep or drop. */
  readonly keywords: Readonly<Record<string, unknown>>
}

export interface IrPrimitive extends IrBase {
  readonly kind: 'primitive'
  readonly type: Primitive
}

export interface IrEnum extends IrBase {
  readonly kind: 'enum'
  readonly values: readonly unknown[]
}

export interface IrObject extends IrBase {
  readonly kind: 'object'
  readonly properties: readonly (readonly [string, IrNode])[]
  readonly required: ReadonlySet<string>
}

export interface IrArray extends IrBase {
  readonly kind: 'array'
  readonly items: IrNode
}

export interface IrUnion extends IrBase {
  readonly kind: 'union'
  readonly branches: readonly IrNode[]
}

export type IrNode = IrPrimitive | IrEnum | IrObject | IrArray | IrUnion

/** The JSON kinds a value of the node can have (`integer` is a `number`). */
export function kindsOf(node: IrNode): Set<string> {
  switch (node.kind) {
    case 'primitive':
      return new Set([node.type === 'integer' ? 'number' : node.type])
    case 'enum':
      return new Set(node.values.map(jsonKind))
    case 'object':
    case 'array':
      return new Set([node.kind])
    case 'union':
      return new Set(node.branches.flatMap((b) => [...kindsOf(b)]))
  }
}

/** The JSON kind of a value: `object`, `array`, `string`, `number`, `boolean` or `null`. */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/** True when the node accepts `null` (an optional property then cannot stand for "absent" as null). */
export function acceptsNull(node: IrNode): boolean {
  return kindsOf(node).has('null')
}

/** Appends a token to a JSON Pointer (RFC 6901 escaping). */
export function pointer(at: string, ...tokens: readonly (string | number)[]): string {
  return tokens.reduce<string>((path, token) => `${path}/${String(token).replace(/~/g, '~0').replace(/\//g, '~1')}`, at)
}
