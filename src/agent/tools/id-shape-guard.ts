import { option, optionsContract } from '../../model/options-contract.ts'
import { renderPath } from '../../validation/schema/path.ts'
import type { GuardContext, GuardVerdict } from './guard.ts'

/** The name of {@link idShapeGuard} in tool results, events and logs. */
export const ID_SHAPE_GUARD_NAME = 'idShapeGuard'

/** Options of {@link idShapeGuard}. */
export interface IdShapeGuardOptions {
  /** Argument names holding an ID, checked at any depth. @default ['message_id', 'thread_id', 'email_id', 'msg_id'] */
  readonly fields?: readonly string[]
  /** The shape of a fabricated ID: a match rejects the call. @default /^[a-z][a-z0-9]*-[a-z][a-z0-9]*-\d+$/ */
  readonly pattern?: RegExp
}

/** The guard {@link idShapeGuard} returns: synchronous, named `idShapeGuard`, and marked to check raw input. */
export type IdShapeGuard = ((args: unknown, ctx?: GuardContext) => GuardVerdict) & { readonly guardName: string; readonly checksRawInput: true }

/** Fields the default guard checks: the ID fields of mail tools, where models invent slugs most. */
export const DEFAULT_ID_FIELDS: readonly string[] = Object.freeze(['message_id', 'thread_id', 'email_id', 'msg_id'])

/**
 * Slugs such as `webhostmost-outlook-1` or `ivalik-gmail-4`: what a model writes when it invents an
 * ID from an account name and a counter instead of copying one it was given. Real provider IDs
 * (UUIDs, Gmail hex, Outlook base64) never have this shape.
 */
export const DEFAULT_ID_PATTERN = /^[a-z][a-z0-9]*-[a-z][a-z0-9]*-\d+$/

/** The contract of {@link IdShapeGuardOptions}. */
export const ID_SHAPE_GUARD_OPTIONS = optionsContract<IdShapeGuardOptions>('idShapeGuard', {
  fields: option.where('an array of property names', (v) => Array.isArray(v) && v.every((f) => typeof f === 'string')),
  pattern: option.where('a RegExp', (v) => v instanceof RegExp),
})

// Arguments come from a model; a hostile one could nest deeply. Past this depth nothing is checked.
const MAX_DEPTH = 64

/**
 * A guard that rejects arguments whose ID fields LOOK fabricated: any value of one of `fields`
 * (in nested objects and arrays too) that matches `pattern`. It checks raw input, so it runs on
 * every attempt and every retry, valid or not.
 *
 * @example
 * Agent.create({ provider, toolGuards: [idShapeGuard({ fields: ['message_id', 'order_id'] })] })
 */
export function idShapeGuard(given?: IdShapeGuardOptions): IdShapeGuard {
  const options = ID_SHAPE_GUARD_OPTIONS.check(given)
  const fields = new Set(options.fields ?? DEFAULT_ID_FIELDS)
  // A global or sticky pattern keeps `lastIndex` between calls; a fresh copy without them does not.
  const source = options.pattern ?? DEFAULT_ID_PATTERN
  const shape: IdShape = { fields, pattern: new RegExp(source.source, source.flags.replace(/[gy]/g, '')) }
  const guard = function idShapeGuard(args: unknown): GuardVerdict {
    const hit = findFabricated(args, shape, 0)
    if (hit === undefined) return { ok: true }
    return {
      ok: false,
      reason: `'${renderPath(hit.segments)}' = "${hit.value}" looks fabricated (shaped like an invented slug, not a real ID): use an ID returned by a previous tool call`,
      path: hit.segments,
    }
  }
  return Object.assign(guard, { guardName: ID_SHAPE_GUARD_NAME, checksRawInput: true as const })
}

type Hit = { segments: (string | number)[]; value: string }

/** What the guard looks for: the ID fields, and the shape of a fabricated ID. */
interface IdShape {
  readonly fields: ReadonlySet<string>
  readonly pattern: RegExp
}

function findFabricated(value: unknown, shape: IdShape, depth: number, path: readonly (string | number)[] = []): Hit | undefined {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return undefined
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const hit = findFabricated(item, shape, depth + 1, [...path, i])
      if (hit !== undefined) return hit
    }
    return undefined
  }
  for (const [key, item] of Object.entries(value)) {
    const at = [...path, key]
    if (shape.fields.has(key)) {
      const hit = matchId(item, shape.pattern, at)
      if (hit !== undefined) return hit
    }
    const hit = findFabricated(item, shape, depth + 1, at)
    if (hit !== undefined) return hit
  }
  return undefined
}

/** An ID field holds one ID or a list of them. */
function matchId(item: unknown, pattern: RegExp, path: (string | number)[]): Hit | undefined {
  if (typeof item === 'string') return pattern.test(item) ? { segments: path, value: item } : undefined
  if (!Array.isArray(item)) return undefined
  const at = item.findIndex((id) => typeof id === 'string' && pattern.test(id))
  return at < 0 ? undefined : { segments: [...path, at], value: item[at] as string }
}
