import { isTransientKind, type ErrorKind } from '../../model/error-kind.ts'
import { ProviderError } from '../../model/provider-error.ts'
import { libraryLink, type Link } from '../link.ts'
import type { AttemptContext } from '../middleware.ts'
import type { BreakerPermit, BreakerResult } from './breaker-permit.ts'
import type { BreakerTransition } from './breaker-state.ts'
import { breakerNow, type BreakerNow, type CircuitBreaker } from './circuit-breaker.ts'

/** How a thrown value counts for the breaker; the gate's classifier is passed in so policies stay below the gate. */
export type JudgeFailure = (error: unknown) => BreakerResult

/**
 * The breaker policy: asks the provider's breaker before the rest of the attempt and records how it
 * ended. An open breaker fails the attempt at once with kind `circuit-open` (and the time left of
 * its cooldown), never calling the provider. A failing store lets the call through: the breaker is
 * advisory.
 */
export function breakerLink(breaker: CircuitBreaker, judge: JudgeFailure, onTransition: (t: BreakerTransition, ctx: AttemptContext) => void): Link {
  // On an in-process store the breaker answers at once: no promise per acquire or record.
  const now = breakerNow(breaker)
  return libraryLink(async function circuitBreaker(ctx, next) {
    const provider = ctx.provider
    let permit: BreakerPermit | undefined
    try {
      permit = now !== undefined ? now.acquire(provider) : await breaker.acquire(provider)
    } catch {
      permit = undefined
    }
    if (permit === undefined) return next(ctx)
    if (permit.transition !== undefined) onTransition(permit.transition, ctx)
    if (!permit.allowed) {
      throw new ProviderError(`the circuit breaker of provider "${provider}" is open`, {
        kind: 'circuit-open',
        provider,
        ...(permit.retryAfterMs !== undefined ? { retryAfterMs: permit.retryAfterMs } : {}),
      })
    }
    let result: BreakerResult = 'success'
    try {
      return await next(ctx)
    } catch (error) {
      result = judge(error)
      throw error
    } finally {
      if (now !== undefined) recordNow(now, provider, permit, result, ctx, onTransition)
      else await record(breaker, provider, permit, result, (t) => onTransition(t, ctx))
    }
  })
}

/**
 * How the breaker counts a failed call of this kind: failures of a transient kind
 * (`TRANSIENT_KINDS`, malformed responses included), refused credentials (`auth`: every call will
 * fail until someone fixes them) and unknown errors count, anything else (an abort, a budget
 * denial) says nothing about the provider. The rate-limit link runs before the
 * breaker, so its denials never reach it.
 */
export function breakerResult(kind: ErrorKind): BreakerResult {
  return isTransientKind(kind) || kind === 'unknown' || kind === 'auth' ? 'failure' : 'ignored'
}

async function record(
  breaker: CircuitBreaker,
  provider: string,
  permit: BreakerPermit,
  result: BreakerResult,
  onTransition: (t: BreakerTransition) => void,
): Promise<void> {
  let transition: BreakerTransition | undefined
  try {
    transition = await breaker.record(provider, permit, result)
  } catch {
    return
  }
  if (transition !== undefined) onTransition(transition)
}

function recordNow(
  now: BreakerNow,
  provider: string,
  permit: BreakerPermit,
  result: BreakerResult,
  ctx: AttemptContext,
  onTransition: (t: BreakerTransition, ctx: AttemptContext) => void,
): void {
  let transition: BreakerTransition | undefined
  try {
    transition = now.record(provider, permit, result)
  } catch {
    return
  }
  if (transition !== undefined) onTransition(transition, ctx)
}
