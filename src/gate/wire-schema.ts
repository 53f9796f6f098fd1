import type { JsonSchema } from '../model/request.ts'
import { utf8Length } from '../model/utf8-length.ts'
import { rememberJsonBytes } from '../policies/budget/json-bytes.ts'

/**
 * The gate's own copy of its output schema's JSON Schema, as every request sends it: what
 * `JSON.stringify` writes of it now, parsed back and deeply frozen, so nothing the caller later does
 * to its schema object reaches a request, and its length (the budget's reservation reads it before
 * every attempt) is measured once. A schema JSON cannot write (a cycle, a bigint) is sent as given.
 */
export function wireSchema(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (schema === undefined) return undefined
  let text: string | undefined
  try {
    text = JSON.stringify(schema)
  } catch {
    return schema
  }
  if (text === undefined) return schema
  const copy: unknown = JSON.parse(text)
  if (typeof copy !== 'object' || copy === null || Array.isArray(copy)) return schema
  freezeAll(copy)
  rememberJsonBytes(copy, utf8Length(text))
  return copy as JsonSchema
}

/** Freezes a parsed JSON value and everything in it (a loop, not recursion: any depth JSON.parse made). */
function freezeAll(root: object): void {
  const pending: object[] = [root]
  for (let value = pending.pop(); value !== undefined; value = pending.pop()) {
    Object.freeze(value)
    for (const item of Object.values(value)) if (typeof item === 'object' && item !== null) pending.push(item)
  }
}
