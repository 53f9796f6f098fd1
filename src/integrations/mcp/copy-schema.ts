import type { SchemaLimits } from './schema-limits.ts'

/** A schema document copied as plain data, or why it was refused. */
export type CopiedSchema = { readonly ok: true; readonly schema: Record<string, unknown> } | { readonly ok: false; readonly reason: string }

interface Frame {
  readonly value: unknown
  readonly depth: number
  readonly set: (copy: unknown) => void
}

/**
 * Copies a schema a server sent into the library's own frozen plain data, within the limits, in
 * one iterative walk (a 10,000-deep document is refused at `maxDepth`, never walked by recursion).
 * Keys are defined, never assigned, so a `__proto__` key stays a key. Anything that is not JSON
 * (a function, a symbol, a cycle an in-process server built) is refused.
 */
export function copySchema(value: unknown, limits: Required<SchemaLimits>, extraChars = 0): CopiedSchema {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: `the schema is not an object (${kindOf(value)})` }
  let root: unknown
  let nodes = 0
  let chars = extraChars
  const stack: Frame[] = [{ value, depth: 1, set: (copy) => (root = copy) }]
  while (stack.length > 0) {
    const { value: node, depth, set } = stack.pop() as Frame
    if (++nodes > limits.maxNodes) return { ok: false, reason: `it holds more than ${limits.maxNodes} values (limits.maxNodes)` }
    if (typeof node === 'string') {
      chars += node.length
      if (chars > limits.maxChars) return tooLong(limits)
      set(node)
      continue
    }
    if (node === null || typeof node === 'boolean' || (typeof node === 'number' && Number.isFinite(node))) {
      set(node)
      continue
    }
    if (typeof node !== 'object') return { ok: false, reason: `it holds a value that is not JSON (${kindOf(node)})` }
    if (depth > limits.maxDepth) return { ok: false, reason: `it nests deeper than ${limits.maxDepth} levels (limits.maxDepth)` }
    if (Array.isArray(node)) {
      const copy: unknown[] = new Array(node.length)
      set(copy)
      for (let i = node.length - 1; i >= 0; i--) stack.push({ value: node[i], depth: depth + 1, set: (c) => (copy[i] = c) })
      continue
    }
    const proto: unknown = Object.getPrototypeOf(node)
    if (proto !== Object.prototype && proto !== null) return { ok: false, reason: `it holds an object that is not plain data (${kindOf(node)})` }
    const copy: Record<string, unknown> = {}
    set(copy)
    const keys = Object.keys(node)
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string
      chars += key.length
      if (chars > limits.maxChars) return tooLong(limits)
      const child = (node as Record<string, unknown>)[key]
      stack.push({
        value: child,
        depth: depth + 1,
        set: (c) => Object.defineProperty(copy, key, { value: c, enumerable: true, writable: true, configurable: true }),
      })
    }
  }
  return { ok: true, schema: deepFreeze(root) as Record<string, unknown> }
}

function tooLong(limits: Required<SchemaLimits>): CopiedSchema {
  return { ok: false, reason: `it holds more than ${limits.maxChars} characters of keys and strings (limits.maxChars)` }
}

function deepFreeze(root: unknown): unknown {
  const stack = [root]
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node !== 'object' || node === null || Object.isFrozen(node)) continue
    Object.freeze(node)
    for (const child of Object.values(node)) stack.push(child)
  }
  return root
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'number') return String(value)
  if (typeof value === 'object') return `an instance of ${(value as object).constructor?.name ?? 'an unknown class'}`
  return `a ${typeof value}`
}
