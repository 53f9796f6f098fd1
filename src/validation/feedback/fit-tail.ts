import { cutAt } from '../schema/received.ts'
import { TRUNCATION_MARKER, truncateForFeedback } from './truncate-for-feedback.ts'
import { truncateEcho, type EchoLimits } from './truncate-echo.ts'
import { countFeedbackTokens } from './truncate-to-tokens.ts'

/** A retry tail's texts, cut so that together they fit the feedback bounds. */
export interface FittedTail<E> {
  readonly feedback: string
  readonly echo: E
}

// What the echo keeps at least when the feedback is long: room for the marker (at most a quarter of the bound).
const MARKER_LINE = `\n${TRUNCATION_MARKER}`

/**
 * Fits a retry tail (the feedback, and the echo of the previous output) within `maxChars`
 * characters and `maxTokens` tokens *in total*. The feedback comes first (it says what to fix): it
 * is cut only if it alone would leave the echo less than the marker; the echo gets what remains.
 * Whatever is cut ends with the marker `[…truncated for length…]`.
 *
 * @example
 * fitTail(feedback, response.content, { maxChars: 4000, maxTokens: 1000 })
 */
export function fitTail(feedback: string, echo: string, limits: EchoLimits): FittedTail<string> {
  if (fitsTogether(feedback, echo, limits)) return { feedback, echo }
  const fitted = fitFeedback(feedback, limits)
  return { feedback: fitted.text, echo: truncateEcho(echo, fitted.rest) }
}

/**
 * Fits a tool-argument retry tail: the feedback, and the echo of the failing call's arguments (as
 * a JSON value, cut by {@link boundJsonValue} so that adapters still receive an object).
 */
export function fitToolTail(feedback: string, args: unknown, limits: EchoLimits): FittedTail<unknown> {
  if (fitsTogether(feedback, jsonText(args), limits)) return { feedback, echo: args }
  const fitted = fitFeedback(feedback, limits)
  return { feedback: fitted.text, echo: boundJsonValue(args, fitted.rest) }
}

function fitsTogether(a: string, b: string, limits: EchoLimits): boolean {
  if (a.length + b.length > limits.maxChars) return false
  return limits.maxTokens === undefined || countFeedbackTokens(a) + countFeedbackTokens(b) <= limits.maxTokens
}

function fitFeedback(feedback: string, limits: EchoLimits): { text: string; rest: EchoLimits } {
  const maxChars = Math.max(0, Math.floor(limits.maxChars))
  const maxTokens = limits.maxTokens
  const charFloor = Math.min(MARKER_LINE.length, Math.floor(maxChars / 4))
  const tokenFloor = maxTokens === undefined ? 0 : Math.min(countFeedbackTokens(MARKER_LINE), Math.floor(maxTokens / 4))
  const text = truncateEcho(feedback, {
    maxChars: maxChars - charFloor,
    maxTokens: maxTokens === undefined ? undefined : Math.max(0, maxTokens - tokenFloor),
  })
  return {
    text,
    rest: { maxChars: maxChars - text.length, maxTokens: maxTokens === undefined ? undefined : Math.max(0, maxTokens - countFeedbackTokens(text)) },
  }
}

// Cut strings and keys end with this; it is one character, so a cut value stays readable.
const ELLIPSIS = '…'
const MAX_DEPTH = 32

/**
 * A JSON value whose JSON text fits within `limits` (characters, and tokens when given): the value
 * itself when it fits; else a copy with long strings and keys cut (ending with `…`), long arrays and
 * objects cut to their first entries, and nesting below 32 levels dropped, tightened until it fits;
 * else, for a value that cannot be made small enough as a structure, its JSON text cut with the
 * marker. Used for the tool-call echo of a retry tail, where a 1 MB key must not be resent.
 *
 * @example
 * boundJsonValue({ ['k'.repeat(1_000_000)]: 1 }, { maxChars: 200 }) // { 'kkkk…(~100 chars)…': 1 }
 */
export function boundJsonValue(value: unknown, limits: EchoLimits): unknown {
  const text = jsonText(value)
  if (fits(text, limits)) return value
  for (let cap = Math.max(8, Math.floor(limits.maxChars / 2)); cap >= 8; cap = Math.floor(cap / 2)) {
    const shrunk = shrink(value, cap, 0)
    if (fits(jsonText(shrunk), limits)) return shrunk
  }
  return truncateEcho(text, limits)
}

function fits(text: string, limits: EchoLimits): boolean {
  if (text.length > limits.maxChars) return false
  return limits.maxTokens === undefined || countFeedbackTokens(text) <= limits.maxTokens
}

function shrink(value: unknown, cap: number, depth: number): unknown {
  if (typeof value === 'string') return cutString(value, cap)
  if (typeof value !== 'object' || value === null) return value
  if (depth >= MAX_DEPTH) return ELLIPSIS
  const entries = Math.max(1, Math.floor(cap / 8))
  if (Array.isArray(value)) return value.slice(0, entries).map((item: unknown) => shrink(item, cap, depth + 1))
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).slice(0, entries)) {
    Object.defineProperty(out, cutString(key, cap), {
      value: shrink((value as Record<string, unknown>)[key], cap, depth + 1),
      enumerable: true,
      configurable: true,
      writable: true,
    })
  }
  return out
}

function cutString(text: string, cap: number): string {
  return text.length <= cap ? text : `${cutAt(text, cap)}${ELLIPSIS}`
}

function jsonText(value: unknown): string {
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return truncateForFeedback(String(value), 1_000)
  }
}
