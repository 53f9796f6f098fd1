import { hasBrand } from '../../model/brand.ts'
import { type RunIdentity, runFailure } from '../../agent/run-events.ts'
import type { Spent } from '../../agent/run-ledger.ts'
import type { EventHub } from '../../events/event-hub.ts'
import { isReliabilityFailFastError, type ReliabilityFailFastError } from '../../gate/fail-fast-error.ts'
import type { FailFastKind } from '../../model/fail-fast-kind.ts'
import type { ValidationFailure } from '../../validation/validation-failure.ts'

const AI_SDK_ERROR = Symbol.for('vercel.ai.error')
const NO_OBJECT_GENERATED = Symbol.for('vercel.ai.error.AI_NoObjectGeneratedError')

/** What the AI SDK's `NoObjectGeneratedError` carries besides its message, from the last answer. */
export interface NoObjectGeneratedFields {
  /** The last answer's text. */
  readonly text: string | undefined
  /** The last answer's finish reason, as the AI SDK spells it (`stop`, `length`, `tool-calls`, ...). */
  readonly finishReason: string | undefined
  /** The last answer's response metadata (id, timestamp, model id), when the model reported it. */
  readonly response: unknown
}

/**
 * Makes a give-up of `reliabilityMiddleware` recognisable to code written for the AI SDK: when the
 * model answered but no valid answer came out (validation, tool arguments, refusal, truncation...),
 * the `ReliabilityFailFastError` also passes `NoObjectGeneratedError.isInstance(error)` and carries
 * its `text`, `finishReason` and `response`. A failure without any answer (a provider error, an
 * abort) is left as it is. Anything else, an error already tagged included, is returned unchanged.
 */
export function asGiveUp(error: unknown, last: NoObjectGeneratedFields | undefined): unknown {
  // Tagged once: an error tagged deeper down (a tool-argument give-up) passes through the outer catch unchanged.
  if (!isReliabilityFailFastError(error) || isNoObjectGenerated(error)) return error
  const answered = error.attempts.some((a) => a.rawOutput !== undefined) || error.kind === 'tool-args-invalid'
  if (!answered) return error
  Object.defineProperties(error, {
    [AI_SDK_ERROR]: { value: true },
    [NO_OBJECT_GENERATED]: { value: true },
    text: { value: last?.text ?? error.lastAttempt?.rawOutput, enumerable: true },
    finishReason: { value: last?.finishReason, enumerable: true },
    response: { value: last?.response, enumerable: true },
  })
  return error
}

/** A tool call the middleware could not settle: the give-up it maps to, and the argument loop's verdict. */
export interface UnsettledToolCall {
  readonly giveUp: { readonly reason: string; readonly kind: FailFastKind }
  readonly verdict: { readonly outcome: string; readonly failure: ValidationFailure }
}

/**
 * The middleware's give-up on a tool call whose arguments stayed invalid, that a guard blocked
 * (`tool-args-invalid`), that the model abandoned (`tool-call-abandoned`) or that repeated its
 * rejected arguments (`schema-stuck-loop`), with `fail_fast` emitted first, as an Agent run's.
 */
export function toolArgsGiveUp(
  unsettled: UnsettledToolCall,
  call: { readonly events: EventHub; readonly who: RunIdentity; readonly spent: Spent },
): ReliabilityFailFastError {
  const { giveUp, verdict } = unsettled
  const stop = { kind: giveUp.kind, reason: `${giveUp.reason} (outcome ${verdict.outcome})`, phase: 'post-decide' as const, failure: verdict.failure }
  return runFailure(call.events, call.who, call.spent, stop)
}

/**
 * True for the errors `generateText` throws when no valid object came out: the AI SDK's own
 * `NoObjectGeneratedError` and the give-up of `reliabilityMiddleware` (a `ReliabilityFailFastError`
 * about an answer). One check for both, without importing `ai`.
 *
 * @example
 * try { await generateText({ model, output: Output.object({ schema }), prompt }) }
 * catch (error) { if (isNoObjectGenerated(error)) return fallbackAnswer; throw error }
 */
export function isNoObjectGenerated(error: unknown): error is Error & NoObjectGeneratedFields {
  // hasBrand answers false for a value whose brand cannot be read (a revoked proxy): a type guard never throws.
  return typeof error === 'object' && hasBrand(error, NO_OBJECT_GENERATED)
}
