import type { ModelRequest } from '../../model/request.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { Usage } from '../../model/usage.ts'
import { CHARS_PER_TOKEN, estimateTokens, isTokenCount, requestChars } from '../../policies/usage-estimate.ts'
import { validateFinalAnswer, type CompiledSchema } from '../../validation/index.ts'
import type { StreamViolation } from '../../validation/stream/index.ts'

/**
 * Usage of an attempt that was cut short. Providers report usage at the end of a stream, so an
 * aborted attempt usually has none: the missing figures are estimated at
 * {@link CHARS_PER_TOKEN} characters per token (input: system and messages; output: the
 * characters received), and the usage is marked `estimated`. Whatever usable counts the provider
 * did report (e.g. Anthropic's input and cache tokens at `message_start`) are kept.
 */
export function abortedUsage(request: ModelRequest, consumedChars: number, reported: unknown): Usage {
  const r = typeof reported === 'object' && reported !== null ? (reported as Partial<Record<keyof Usage, unknown>>) : {}
  const usage: { -readonly [K in keyof Usage]: Usage[K] } = {
    inputTokens: isTokenCount(r.inputTokens) && r.inputTokens > 0 ? r.inputTokens : estimateTokens(requestChars(request)),
    outputTokens: Math.max(isTokenCount(r.outputTokens) ? r.outputTokens : 0, estimateTokens(consumedChars)),
    estimated: true,
  }
  if (isTokenCount(r.cacheReadTokens)) usage.cacheReadTokens = r.cacheReadTokens
  if (isTokenCount(r.cacheWriteTokens)) usage.cacheWriteTokens = r.cacheWriteTokens
  return usage
}

/** A streamed answer cut on a definite violation: the text received, the value it parsed to so far, the violation and the attempt's usage. */
export interface CutAnswer {
  readonly raw: string
  readonly partial: unknown
  readonly violation: StreamViolation
  readonly usage: Usage
}

/**
 * The response of an attempt aborted on a definite violation. Its content is the raw text
 * received when validating it (against `schema`, repaired when `repair`) reports the violation's
 * path; otherwise (e.g. an unknown key whose value had not started) the partial value with the
 * violation made explicit, so the gate's normal validation names the real problem in its feedback.
 */
export async function abortedResponse<T>(cut: CutAnswer, schema: CompiledSchema<T>, repair: boolean): Promise<ModelResponse> {
  const { raw, partial, violation, usage } = cut
  const response = (content: string): ModelResponse => {
    const made: ModelResponse = { content, toolCalls: [], usage, stopReason: 'other' }
    CUT_ANSWERS.set(made, violation)
    return made
  }
  if (await reportsViolation(raw, violation, schema, repair)) return response(raw)
  const explicit = JSON.stringify(withViolation(partial, violation))
  return response(explicit !== undefined && (await reportsViolation(explicit, violation, schema, repair)) ? explicit : raw)
}

// The responses made of a stream cut on a violation, with that violation (see `cutViolationOf`).
const CUT_ANSWERS = new WeakMap<ModelResponse, StreamViolation>()

/**
 * The violation a response made by {@link abortedResponse} was cut on, else `undefined`. What came
 * after it was never read: a field it lacks may have been on its way, so only the violation (and a
 * missing field only when that is the violation) is the model's to fix.
 */
export function cutViolationOf(response: ModelResponse): StreamViolation | undefined {
  return CUT_ANSWERS.get(response)
}

/** Does validating `content` report this violation (its path, and a missing field only for a missing field)? */
async function reportsViolation<T>(content: string, violation: StreamViolation, schema: CompiledSchema<T>, repair: boolean): Promise<boolean> {
  const verdict = await validateFinalAnswer(content, schema, { repair })
  if (verdict.ok) return false
  // Repairing a cut text may drop the half-received value, which then reads as "missing".
  const missing = violation.code === 'missing_required'
  return verdict.failure.issues.some((i) => i.path === violation.path && (i.code === 'missing_required') === missing)
}

/**
 * A copy of the partial value where an unknown key that had no value yet holds `null`, and a forbidden
 * key (which the partial value never holds) is written back as an own key: `__proto__` holding `null`,
 * a `constructor` holding `{ prototype: null }`.
 */
function withViolation(partial: unknown, violation: StreamViolation): unknown {
  if (violation.code !== 'unknown_property' && violation.code !== 'forbidden_key') return partial
  const copy = structuredClone(partial)
  let node: unknown = copy
  const segments = violation.segments
  for (let i = 0; i < segments.length - 1; i++) node = (node as Record<string | number, unknown> | undefined)?.[segments[i] as string | number]
  const last = segments[segments.length - 1]
  if (typeof node !== 'object' || node === null || last === undefined) return copy
  if (violation.code === 'forbidden_key') {
    const value = last === '__proto__' ? null : { prototype: null }
    Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true })
  } else if (!Object.hasOwn(node, last)) (node as Record<string | number, unknown>)[last] = null
  return copy
}
