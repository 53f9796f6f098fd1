import { isRecord } from '../../model/is-record.ts'
import { showInvisible } from './visible-text.ts'

/** One step into a value: a property name or an array index. */
export type PathSegment = string | number

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/**
 * Renders segments the way a reader writes them: `items[0].title`, `["weird key"]` for keys that
 * are not identifiers, `''` for the root.
 */
export function renderPath(segments: readonly PathSegment[]): string {
  let out = ''
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`
    // A key holding an invisible character is shown escaped: the model cannot fix what it cannot see.
    else out += `[${showInvisible(JSON.stringify(segment))}]`
  }
  return out
}

/** One JSON Pointer token: `~` and `/` escaped (`~0`, `~1`), as validators write error paths. */
export function escapePointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1')
}

/**
 * Splits a JSON Pointer (`/items/0/title`) into segments. A numeric token becomes a number only
 * where the value at that point is an array, so an object key `"0"` stays a string.
 */
export function pointerToSegments(pointer: string, root: unknown): PathSegment[] {
  if (pointer === '') return []
  const tokens = pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
  const segments: PathSegment[] = []
  let current: unknown = root
  for (const token of tokens) {
    const isIndex = Array.isArray(current) && /^(0|[1-9]\d*)$/.test(token)
    const segment: PathSegment = isIndex ? Number(token) : token
    segments.push(segment)
    current = childOf(current, segment)
  }
  return segments
}

/** The value at `segments` inside `root`, or `undefined` when any step is missing. */
export function valueAt(root: unknown, segments: readonly PathSegment[]): unknown {
  let current = root
  for (const segment of segments) current = childOf(current, segment)
  return current
}

/** Whether the last segment names a property that the parent object does not have. */
export function isMissingProperty(root: unknown, segments: readonly PathSegment[]): boolean {
  const last = segments[segments.length - 1]
  if (typeof last !== 'string') return false
  const parent = valueAt(root, segments.slice(0, -1))
  return isRecord(parent) && !Object.hasOwn(parent, last)
}

function childOf(value: unknown, segment: PathSegment): unknown {
  if (typeof value !== 'object' || value === null) return undefined
  // Own properties only: a path must never walk into a prototype.
  return Object.hasOwn(value, segment) ? (value as Record<PathSegment, unknown>)[segment] : undefined
}
