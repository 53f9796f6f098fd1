import type { JsonSchema } from '../../model/request.ts'
import { valueAt } from '../../validation/schema/path.ts'
import { generateValue } from './generate-value.ts'
import { hashString, mixSeed } from './prng.ts'
import type { PromptHints } from './prompt-hints.ts'
import type { NamedIssue } from './read-feedback.ts'
import { childSchema, resolveSchema, type SchemaNode } from './schema.ts'
import { deleteAt, setAt, type Segment } from './value-path.ts'

/** What a fix needs besides the previous value: the valid answer and how to make more of it. */
export interface FixContext {
  readonly schema: JsonSchema
  /** The valid value of this request; the correct value at a path is taken from it when it has one. */
  readonly valid: unknown
  readonly seed: number
  readonly hints: PromptHints
}

/**
 * Repairs exactly the issues the feedback names, leaving every other part of `previous` as it was:
 * an unknown field is removed, anything else gets the correct value at its path (added if missing),
 * `(root)` replaces the whole value. A named path the schema does not describe is removed.
 */
export function fixIssues(previous: unknown, issues: readonly NamedIssue[], ctx: FixContext): unknown {
  let value = structuredClone(previous)
  // Replacements first, then removals from the back, so that removing an array item never shifts
  // the index another line refers to.
  const replacements = issues.filter((i) => !i.remove).sort((a, b) => a.path.length - b.path.length)
  const removals = issues.filter((i) => i.remove).sort((a, b) => compareDescending(a.path, b.path))
  for (const { path } of replacements) {
    const correct = valueAt(ctx.valid, path) ?? generateAt(path, ctx)
    value = correct === undefined ? deleteAt(value, path) : setAt(value, path, structuredClone(correct))
  }
  for (const { path } of removals) value = deleteAt(value, path)
  return value
}

/** A fresh valid value for `path` when the valid answer has nothing there (an optional property, a further item). */
function generateAt(path: readonly Segment[], ctx: FixContext): unknown {
  let node: SchemaNode | undefined = resolveSchema(ctx.schema, ctx.schema)
  for (const segment of path) {
    node = childSchema(node, segment, ctx.schema)
    if (node === undefined) return undefined
  }
  return generateValue(node, mixSeed(ctx.seed, hashString(JSON.stringify(path))), { root: ctx.schema, hints: ctx.hints })
}

function compareDescending(a: readonly Segment[], b: readonly Segment[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i], b[i]]
    if (x === y) continue
    if (typeof x === 'number' && typeof y === 'number') return y - x
    return String(y).localeCompare(String(x))
  }
  return b.length - a.length
}
