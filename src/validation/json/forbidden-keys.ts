import type { PathSegment } from '../schema/path.ts'

/** Where a parsed value holds a key that could pollute prototypes once merged into other objects. */
export interface ForbiddenKey {
  readonly segments: readonly PathSegment[]
  readonly key: '__proto__' | 'constructor'
}

/**
 * Finds the first `__proto__` key, or `constructor` key whose value holds a `prototype` (the
 * secure-json-parse policy), in a value produced by `JSON.parse`. `JSON.parse` itself creates such
 * keys as plain own properties; the danger is a later merge or assignment, so the value is refused.
 */
export function findForbiddenKey(root: unknown): ForbiddenKey | undefined {
  const stack: { value: unknown; segments: PathSegment[] }[] = [{ value: root, segments: [] }]
  while (stack.length > 0) {
    const { value, segments } = stack.pop() as { value: unknown; segments: PathSegment[] }
    if (typeof value !== 'object' || value === null) continue
    if (Array.isArray(value)) {
      value.forEach((item: unknown, index) => stack.push({ value: item, segments: [...segments, index] }))
      continue
    }
    for (const key of Object.keys(value)) {
      const child: unknown = (value as Record<string, unknown>)[key]
      if (key === '__proto__') return { segments: [...segments, key], key }
      if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) {
        return { segments: [...segments, key], key }
      }
      stack.push({ value: child, segments: [...segments, key] })
    }
  }
  return undefined
}

// A forbidden key can only appear in the text literally or behind a `\u` escape.
const MAY_HOLD_FORBIDDEN_KEY = /__proto__|constructor|\\u/

/** Whether a JSON text could hold a forbidden key: one linear scan, before any parsed value is walked. */
export function mayHoldForbiddenKey(text: string): boolean {
  return MAY_HOLD_FORBIDDEN_KEY.test(text)
}
