import type { ValidationIssue } from '../issue.ts'
import { makeIssue } from '../schema/make-issue.ts'
import { renderPath, type PathSegment } from '../schema/path.ts'
import { DEFAULT_MAX_DEPTH } from './json-limits.ts'

/** The keys refused in model JSON: `__proto__`, and `constructor` when it holds a `prototype`. */
export type ForbiddenKeyName = '__proto__' | 'constructor'

/** Where a value holds a key that could pollute prototypes once merged into other objects. */
export interface ForbiddenKey {
  readonly segments: readonly PathSegment[]
  readonly key: ForbiddenKeyName
}

/**
 * Whether `key` is refused in model JSON whatever it holds: only `__proto__` (a merge or an
 * assignment walks into the target's prototype). `constructor` is refused only when it holds an object
 * with a `prototype` key (see `findForbiddenKey`), as fastify's secure-json-parse does:
 * `{"constructor": "Ferrari"}` is plain data.
 *
 * @example
 * isForbiddenKey('__proto__')   // true
 * isForbiddenKey('constructor') // false: refused only when it holds a prototype
 */
export function isForbiddenKey(key: string): key is '__proto__' {
  return key === '__proto__'
}

/**
 * Whether `key` names a member every object inherits from `Object.prototype` that a deep merge can walk
 * into (`__proto__`, `constructor`, `prototype`): for conservative analyses of schemas and of `in`
 * checks, not for refusing data.
 */
export function isPrototypeKey(key: string): boolean {
  return key === '__proto__' || key === 'constructor' || key === 'prototype'
}

/**
 * Finds the first forbidden key in a value, depth first: a `__proto__` key, or a `constructor` key
 * holding an object with a `prototype` key (what fastify's secure-json-parse refuses). `JSON.parse`
 * creates such keys as plain own properties; the danger is a later merge or assignment in user
 * code, so the whole value is refused. Cycles (possible in values built by code) are walked once.
 */
export function findForbiddenKey(root: unknown): ForbiddenKey | undefined {
  const found = walk(root, Number.POSITIVE_INFINITY)
  return found === undefined || found.key === undefined ? undefined : (found as ForbiddenKey)
}

/** A value on the walk: where it sits, by its parent and the step from it (its path is made only for what is found). */
interface Step {
  readonly value: unknown
  readonly parent: Step | undefined
  readonly segment: PathSegment
  readonly depth: number
}

/**
 * The first forbidden key, or the first object or array nested deeper than `maxDepth` (no `key`). Linear in the
 * value's size, however deep: each step holds its parent, never a copy of its path.
 */
function walk(root: unknown, maxDepth: number): { readonly segments: readonly PathSegment[]; readonly key?: ForbiddenKeyName } | undefined {
  const stack: Step[] = [{ value: root, parent: undefined, segment: '', depth: 1 }]
  const seen = new Set<object>()
  while (stack.length > 0) {
    const step = stack.pop() as Step
    const { value } = step
    if (typeof value !== 'object' || value === null || seen.has(value)) continue
    if (step.depth > maxDepth) return { segments: pathOf(step) }
    seen.add(value)
    const depth = step.depth + 1
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) stack.push({ value: value[index] as unknown, parent: step, segment: index, depth })
      continue
    }
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key]
      if (key === '__proto__') return { segments: [...pathOf(step), key], key }
      if (key === 'constructor' && holdsPrototype(child)) return { segments: [...pathOf(step), key], key }
      stack.push({ value: child, parent: step, segment: key, depth })
    }
  }
  return undefined
}

function pathOf(step: Step): PathSegment[] {
  const segments: PathSegment[] = []
  for (let at: Step | undefined = step; at?.parent !== undefined; at = at.parent) segments.push(at.segment)
  return segments.reverse()
}

function holdsPrototype(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'prototype')
}

/**
 * The issue a forbidden key is reported with, the same on every path model JSON enters by (final
 * answers, tool arguments, fallback values, streamed partial values): code `forbidden_key`.
 */
export function forbiddenKeyIssue(found: ForbiddenKey): ValidationIssue {
  const path = renderPath(found.segments)
  return makeIssue({
    segments: found.segments,
    code: 'forbidden_key',
    message: found.key === 'constructor' ? `forbidden key 'constructor' holding a 'prototype' at '${path}'` : `forbidden key '${found.key}' at '${path}'`,
  })
}

/**
 * Refuses a value that holds a forbidden key, or nesting deeper than `parseJsonSafe` accepts in a text
 * (256 levels: past it, `JSON.stringify` and every recursive reader can overflow the stack): `undefined`
 * when the value is safe, else the `forbidden_key` issue (or the nesting's). For values parsed by someone
 * else (a provider SDK's tool arguments, a fallback's answer); text parsed with `parseJsonSafe` is already checked.
 *
 * @example
 * checkForbiddenKeys(JSON.parse('{"__proto__": {"admin": true}}')) // { code: 'forbidden_key', path: '__proto__', ... }
 */
export function checkForbiddenKeys(value: unknown): ValidationIssue | undefined {
  const found = walk(value, DEFAULT_MAX_DEPTH)
  if (found === undefined) return undefined
  if (found.key !== undefined) return forbiddenKeyIssue(found as ForbiddenKey)
  const path = renderPath(found.segments)
  return makeIssue({ segments: found.segments, code: 'other', message: `nesting deeper than ${DEFAULT_MAX_DEPTH} levels at '${path}'` })
}

// A forbidden key can only appear in the text literally or behind a `\u` escape (`prototype` is refused only inside `constructor`).
const MAY_HOLD_FORBIDDEN_KEY = /__proto__|prototype|\\u/

/** Whether a JSON text could hold a forbidden key: one linear scan, before any parsed value is walked. */
export function mayHoldForbiddenKey(text: string): boolean {
  return MAY_HOLD_FORBIDDEN_KEY.test(text)
}
