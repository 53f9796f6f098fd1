import type { ModelResponse } from '../model/response.ts'
import { ZERO_USAGE } from '../model/usage.ts'
import type { ReliabilityScope } from '../rules/scope.ts'
import { validateFinalAnswer, type CompiledSchema } from '../validation/index.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import { messageOf } from './error-message.ts'
import type { FallbackAnswer } from './gate-config.ts'

/** The fallback's verdict: an accepted answer, or why it could not be used. */
export type FallbackVerdict<T> =
  | { readonly ok: true; readonly response: ModelResponse; readonly value: T | string }
  | { readonly ok: false; readonly kind: 'fallback-failed' | 'fallback-invalid'; readonly reason: string; readonly cause?: unknown; readonly failure?: ValidationFailure }

/** Calls the configured fallback and validates its answer like a model answer. */
export async function runFallback<T>(
  fallback: (scope: ReliabilityScope) => FallbackAnswer | Promise<FallbackAnswer>,
  scope: ReliabilityScope,
  schema: CompiledSchema<T> | undefined,
  repair: boolean,
): Promise<FallbackVerdict<T>> {
  let answer: FallbackAnswer
  try {
    answer = await fallback(scope)
  } catch (error) {
    return { ok: false, kind: 'fallback-failed', reason: `the fallback threw: ${messageOf(error)}`, cause: error }
  }
  const response: ModelResponse = typeof answer === 'string' ? { content: answer, toolCalls: [], usage: ZERO_USAGE, stopReason: 'end' } : answer
  const verdict = await validateFinalAnswer(response.content, schema, { repair, truncated: response.stopReason === 'max_tokens' })
  if (!verdict.ok) {
    return { ok: false, kind: 'fallback-invalid', reason: `the fallback's answer failed validation: ${verdict.failure.message}`, failure: verdict.failure }
  }
  return { ok: true, response, value: verdict.value }
}
