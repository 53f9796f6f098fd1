import { valueAt, type PathSegment } from '../../validation/schema/path.ts'
import { isRecord } from '../../model/is-record.ts'

/** One step into a value: a property name or an array index. */
export type Segment = PathSegment

const TOKEN = /(?:^|\.)([^.[\]]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\['([^']*)'\]/y

/**
 * Reads a path as the gate's feedback writes it (`items[0].title`, `["weird key"]`, `(root)`), or a
 * JSON Pointer (`/items/0/title`). `undefined` when the text is not a path.
 */
export function parsePath(text: string): Segment[] | undefined {
  const path = text.trim()
  if (path === '' || path === '(root)' || path === '$' || path === '/') return []
  if (path.startsWith('/'))
    return path
      .slice(1)
      .split('/')
      .map((t) => (/^\d+$/.test(t) ? Number(t) : t.replace(/~1/g, '/').replace(/~0/g, '~')))
  const source = path.startsWith('$.') ? path.slice(2) : path
  const segments: Segment[] = []
  TOKEN.lastIndex = 0
  while (TOKEN.lastIndex < source.length) {
    const start = TOKEN.lastIndex
    const match = TOKEN.exec(source)
    if (match === null || TOKEN.lastIndex === start) return undefined
    const [, key, index, quoted, single] = match
    if (key !== undefined) segments.push(key)
    else if (index !== undefined) segments.push(Number(index))
    else if (quoted !== undefined) segments.push(JSON.parse(quoted) as string)
    else segments.push(single ?? '')
  }
  return segments
}

/** Sets the value at `segments` inside `root` (mutating it), creating missing containers; returns the new root. */
export function setAt(root: unknown, segments: readonly Segment[], value: unknown): unknown {
  const [head, ...rest] = segments
  if (head === undefined) return value
  const container = (typeof head === 'number' ? (Array.isArray(root) ? root : []) : isRecord(root) ? root : {}) as Record<Segment, unknown>
  container[head] = setAt(Object.hasOwn(container, head) ? container[head] : undefined, rest, value)
  return container
}

/** Removes the property or array item at `segments` (mutating `root`); returns the root. */
export function deleteAt(root: unknown, segments: readonly Segment[]): unknown {
  if (segments.length === 0) return root
  const parent = valueAt(root, segments.slice(0, -1))
  const last = segments[segments.length - 1] as Segment
  if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1)
  else if (isRecord(parent) && typeof last === 'string') delete parent[last]
  return root
}

/** Whether one path is the other or contains it. */
export function overlaps(a: readonly Segment[], b: readonly Segment[]): boolean {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return false
  return true
}
