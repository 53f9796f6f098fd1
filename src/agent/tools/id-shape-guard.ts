import { option, optionsContract } from '../../model/options-contract.ts'
import { DEFAULT_MAX_DEPTH } from '../../validation/json/json-limits.ts'
import { renderPath } from '../../validation/schema/path.ts'
import type { GuardContext, GuardVerdict } from './guard.ts'

/** The name of {@link idShapeGuard} in tool results, events and logs. */
export const ID_SHAPE_GUARD_NAME = 'idShapeGuard'

/** Options of {@link idShapeGuard}. */
export interface IdShapeGuardOptions {
  /**
   * Argument names holding an ID (or a list of IDs), checked at any depth, with the whitespace
   * around a value ignored. @default ['message_id', 'thread_id', 'email_id', 'msg_id']
   */
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

// As deep as the library parses a model's JSON: arguments nested deeper (or a cycle, from a
// provider handing objects) cannot be checked, so they are rejected rather than let through.
const MAX_DEPTH = DEFAULT_MAX_DEPTH

// How much of a fabricated value the reason quotes: enough to recognise it, never a megabyte of digits.
const MAX_QUOTED_VALUE = 120

/**
 * A guard that rejects arguments whose ID fields LOOK fabricated: any value of one of `fields`
 * (in nested objects and arrays too, and in lists of IDs) that matches `pattern`, as it is or
 * without the whitespace around it. It checks raw input, so it runs on every attempt and every
 * retry, valid or not. Arguments nested deeper than the library parses (256 levels) are rejected:
 * they cannot be checked.
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
    const hit = findFabricated(args, { ...shape, clean: new WeakSet() }, 0, [])
    if (hit === undefined) return { ok: true }
    if (hit === TOO_DEEP) return { ok: false, reason: `the arguments nest deeper than ${MAX_DEPTH} levels: too deep to check for fabricated IDs` }
    return {
      ok: false,
      reason: `'${renderPath(hit.segments)}' = ${quoted(hit.value)} looks fabricated (shaped like an invented slug, not a real ID): use an ID returned by a previous tool call`,
      path: hit.segments,
    }
  }
  return Object.assign(guard, { guardName: ID_SHAPE_GUARD_NAME, checksRawInput: true as const })
}

type Hit = { segments: (string | number)[]; value: string }

/** The arguments nest deeper than {@link MAX_DEPTH}: nothing below is checked, so the call is rejected. */
const TOO_DEEP = Symbol('too deep')

/** What the guard looks for: the ID fields, and the shape of a fabricated ID. */
interface IdShape {
  readonly fields: ReadonlySet<string>
  readonly pattern: RegExp
}

/** One walk: the shape, and the objects already found clean (one object reached twice is walked once). */
interface Walk extends IdShape {
  readonly clean: WeakSet<object>
}

/** Walks `value` depth first; `path` is where it stands (one array, copied only for a hit). */
function findFabricated(value: unknown, walk: Walk, depth: number, path: (string | number)[]): Hit | typeof TOO_DEEP | undefined {
  if (typeof value !== 'object' || value === null || walk.clean.has(value)) return undefined
  if (depth > MAX_DEPTH) return TOO_DEEP
  const entries: Iterable<[string | number, unknown]> = Array.isArray(value) ? value.entries() : Object.entries(value)
  for (const [key, item] of entries) {
    path.push(key)
    const hit =
      (typeof key === 'string' && walk.fields.has(key) ? matchId(item, walk.pattern, depth + 1, path) : undefined) ??
      findFabricated(item, walk, depth + 1, path)
    path.pop()
    if (hit !== undefined) return hit
  }
  walk.clean.add(value)
  return undefined
}

/** An ID field holds one ID or a list of them (lists of lists too). */
function matchId(item: unknown, pattern: RegExp, depth: number, path: (string | number)[]): Hit | typeof TOO_DEEP | undefined {
  if (typeof item === 'string') return looksFabricated(item, pattern) ? { segments: [...path], value: item } : undefined
  if (!Array.isArray(item)) return undefined
  if (depth > MAX_DEPTH) return TOO_DEEP
  for (const [i, id] of item.entries()) {
    path.push(i)
    const hit = matchId(id, pattern, depth + 1, path)
    path.pop()
    if (hit !== undefined) return hit
  }
  return undefined
}

/**
 * The value, or the value without the whitespace around it, has the fabricated shape: a slug with a
 * trailing newline or a space is as invented (Python's `$`, which the seed's pattern was written
 * for, matches before a final newline).
 */
function looksFabricated(value: string, pattern: RegExp): boolean {
  if (pattern.test(value)) return true
  const trimmed = value.trim()
  return trimmed !== value && pattern.test(trimmed)
}

/** The value as the reason quotes it: JSON-escaped (a newline shows as `\n`), cut at {@link MAX_QUOTED_VALUE} characters. */
function quoted(value: string): string {
  return JSON.stringify(value.length > MAX_QUOTED_VALUE ? `${value.slice(0, MAX_QUOTED_VALUE)}…` : value)
}
