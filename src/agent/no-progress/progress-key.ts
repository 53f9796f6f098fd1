import { stableKey } from '../../model/stable-key.ts'
import { checkForbiddenKeys } from '../../validation/index.ts'
import type { NoProgressSettings } from './no-progress-options.ts'

/**
 * What two calls of one tool are compared by: the tool's `loopKey` of the arguments when it has one,
 * else the arguments; as canonical JSON (keys sorted at every depth, numbers as JSON writes them, so
 * `1.0` and `1`, or `{"b":1,"a":2}` and `{"a":2,"b":1}`, are one key). Arguments given as JSON text
 * (as the AI SDK and OpenAI deliver them) are parsed first; text that is no JSON is its own key.
 */
export function callKey(tool: string, args: unknown, settings: NoProgressSettings): string {
  const value = parsedArgs(args)
  const keyOf = Object.hasOwn(settings.loopKey, tool) ? settings.loopKey[tool] : undefined
  // Arguments holding a `__proto__` key (or a `constructor` holding a `prototype`) are model JSON no user code sees: compared whole.
  if (keyOf !== undefined && checkForbiddenKeys(value) === undefined) {
    try {
      // The key function sees a copy: one that changes its argument cannot change the call the tool runs with.
      const key = keyOf(typeof value === 'object' && value !== null ? JSON.parse(stableKey(value)) : value)
      // A key that throws, or a promise (every promise would look alike), compares the whole arguments: a user's bug never hides or invents a loop.
      if (!isThenable(key)) return `${tool}\u0000${stableKey(key)}`
    } catch {}
  }
  try {
    return `${tool}\u0000${stableKey(value)}`
  } catch {
    // Arguments that cannot be read as JSON (a throwing getter, a cycle, a BigInt) equal no other call: no loop is invented.
    return `${tool}\u0001${++unreadable}`
  }
}

let unreadable = 0

function isThenable(value: unknown): boolean {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function'
}

function parsedArgs(args: unknown): unknown {
  if (typeof args !== 'string') return args
  try {
    return JSON.parse(args) as unknown
  } catch {
    return args
  }
}

// Longer than any error's gist; a model's endless error text is compared by its start.
const MAX_CLASS = 200

/**
 * The class of a tool error: its first line with every token holding a digit (ids, amounts, dates,
 * line numbers) written `#`, so "seat 14C not available on HAT030" and "seat 9A not available on
 * HAT223" are one class, "seat not available" and "payment declined" two.
 *
 * @example
 * errorClass('Error: flight HAT030 not available on date 2024-05-13') // 'Error: flight # not available on date #'
 */
export function errorClass(error: string): string {
  const line = error.trimStart().split('\n', 1)[0] ?? ''
  // Split at spaces and brackets (each token seen once: linear), then every token with a digit is `#`.
  const tokens = line.slice(0, MAX_CLASS * 2).split(/([\s,;()[\]{}"'`]+)/)
  return tokens
    .map((t) => (/\d/.test(t) ? '#' : t))
    .join('')
    .slice(0, MAX_CLASS)
}
