import { isRecord } from '../../model/is-record.ts'
import { jsonKind } from './ir.ts'

/** The value mapping of one compiled node; `undefined` stands for the identity (most nodes). */
export interface Codec {
  readonly forward: (value: unknown) => unknown
  readonly back: (value: unknown) => unknown
}

/** How an object's property travels: as is, absent <-> `null`, or absent <-> `null` and present <-> `{ value }`. */
export type PropertyMode = 'as-is' | 'null-for-absent' | 'wrapped'

export interface PropertyCodec {
  readonly name: string
  readonly mode: PropertyMode
  readonly codec: Codec | undefined
  /**
   * For `null-for-absent`: what a present `null` (a value the property refuses) travels as, a JSON
   * value of a kind the property has none of, so that no refused value maps back to an accepted one.
   */
  readonly nullAs?: readonly unknown[] | Readonly<Record<string, unknown>>
}

const isNullAs = (p: PropertyCodec, item: unknown) => p.nullAs !== undefined && JSON.stringify(item) === JSON.stringify(p.nullAs)

const fwd = (codec: Codec | undefined, value: unknown) => (codec === undefined ? value : codec.forward(value))
const bwd = (codec: Codec | undefined, value: unknown) => (codec === undefined ? value : codec.back(value))

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * The codec of an object whose properties are all required in the compiled schema. Undeclared keys
 * pass through untouched both ways (the compiled schema refuses them; the gate decides). Neither
 * direction throws on a value of another shape: it is returned as is, for the validation to judge.
 */
export function objectCodec(properties: readonly PropertyCodec[]): Codec | undefined {
  if (properties.every((p) => p.mode === 'as-is' && p.codec === undefined)) return undefined
  const byName = new Map(properties.map((p) => [p.name, p]))
  return {
    forward(value) {
      if (!isRecord(value)) return value
      const out: Record<string, unknown> = {}
      for (const p of properties) {
        const item = value[p.name]
        if (!Object.hasOwn(value, p.name)) {
          if (p.mode !== 'as-is') define(out, p.name, null)
        } else if (p.mode === 'wrapped') define(out, p.name, { value: fwd(p.codec, item) })
        else if (p.mode === 'null-for-absent' && item === null) define(out, p.name, p.nullAs ?? null)
        else define(out, p.name, fwd(p.codec, item))
      }
      for (const key of Object.keys(value)) if (!byName.has(key)) define(out, key, value[key])
      return out
    },
    back(value) {
      if (!isRecord(value)) return value
      const out: Record<string, unknown> = {}
      for (const key of Object.keys(value)) {
        const p = byName.get(key)
        const item = value[key]
        if (p === undefined) define(out, key, item)
        else if (p.mode !== 'as-is' && item === null) continue
        else if (p.mode === 'null-for-absent' && isNullAs(p, item)) define(out, key, null)
        else if (p.mode === 'wrapped') define(out, key, isRecord(item) && Object.hasOwn(item, 'value') ? bwd(p.codec, item['value']) : item)
        else define(out, key, bwd(p.codec, item))
      }
      return out
    },
  }
}

/** The codec of an array whose items have one. */
export function arrayCodec(items: Codec | undefined): Codec | undefined {
  if (items === undefined) return undefined
  return {
    forward: (value) => (Array.isArray(value) ? value.map((v) => items.forward(v)) : value),
    back: (value) => (Array.isArray(value) ? value.map((v) => items.back(v)) : value),
  }
}

/**
 * The codec of a union: each member with a codec owns JSON kinds no other member has (checked by the
 * caller), so the value's own kind says which member it belongs to, both ways.
 */
export function unionCodec(byKind: ReadonlyMap<string, Codec>): Codec | undefined {
  if (byKind.size === 0) return undefined
  return {
    forward: (value) => fwd(byKind.get(jsonKind(value)), value),
    back: (value) => bwd(byKind.get(jsonKind(value)), value),
  }
}

/** The codec that carries a non-object root as the `value` property of an object. */
export function rootWrapCodec(inner: Codec | undefined): Codec {
  return {
    forward: (value) => ({ value: fwd(inner, value) }),
    back: (value) => (isRecord(value) && Object.hasOwn(value, 'value') ? bwd(inner, value['value']) : value),
  }
}
