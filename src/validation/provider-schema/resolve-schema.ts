import { isRecord } from '../../model/is-record.ts'
import { resolveJsonPointer } from '../schema/json-pointer.ts'
import { ANNOTATIONS } from './keyword-groups.ts'
import { mergeSchemas } from './merge-schemas.ts'
import { Uncompilable } from './types.ts'

type Schema = Readonly<Record<string, unknown>>

/** A schema node with its `$ref` followed and its `allOf` merged, plus where it now lives. */
export interface Resolved {
  readonly schema: Schema
  readonly at: string
  /** The `$ref` targets followed on the way here (a cycle means a recursive type). */
  readonly refs: readonly string[]
}

/** A schema as an object: `true` is `{}`; `false` and non-objects are refused. */
export function asSchema(node: unknown, at: string): Schema {
  if (node === true) return {}
  if (node === false) throw new Uncompilable('a schema that accepts nothing (false)', at)
  if (!isRecord(node)) throw new Uncompilable('not a schema (neither an object nor a boolean)', at)
  return node
}

/**
 * Follows the node's `$ref` (local JSON Pointers only) and merges its `allOf` members into it, until
 * neither is left. A `$ref` seen again on the way is a recursive type: refused, since inlining it
 * never ends and no target here takes a cycle the compiler could map values through.
 */
export function resolveSchema(root: unknown, node: unknown, at: string, refs: readonly string[]): Resolved {
  let schema = asSchema(node, at)
  let where = at
  let seen = refs
  for (let step = 0; ; step++) {
    if (step > 256) throw new Uncompilable('too many $ref and allOf levels', where)
    const ref = schema['$ref']
    if (ref !== undefined) {
      if (typeof ref !== 'string') throw new Uncompilable('$ref is not a string', where)
      if (seen.includes(ref)) throw new Uncompilable(`recursive schema ($ref cycle through "${ref}")`, where)
      const target = resolveJsonPointer(root, ref)
      if (target === undefined) throw new Uncompilable(`$ref "${ref}" does not resolve to a local definition`, where)
      const { $ref: _, ...siblings } = schema
      if (Object.keys(siblings).some((key) => !ANNOTATIONS.has(key)))
        throw new Uncompilable('assertions beside $ref (their meaning differs between drafts)', where)
      seen = [...seen, ref]
      where = ref.slice(1)
      schema = mergeSchemas(siblings, asSchema(target, where), where)
      continue
    }
    const allOf = schema['allOf']
    if (allOf === undefined) return { schema, at: where, refs: seen }
    if (!Array.isArray(allOf)) throw new Uncompilable('allOf is not an array', where)
    const { allOf: __, ...rest } = schema
    let merged: Schema = rest
    // A member's `$ref`s are the node's own from here on: a descendant reaching one again recurses.
    const followed = new Set(seen)
    allOf.forEach((member, i) => {
      const resolved = resolveSchema(root, member, `${where}/allOf/${i}`, seen)
      merged = mergeSchemas(merged, resolved.schema, where)
      for (const ref of resolved.refs) followed.add(ref)
    })
    schema = merged
    seen = [...followed]
  }
}
