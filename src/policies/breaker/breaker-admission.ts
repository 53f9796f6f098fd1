import { isTransientKind, type ErrorKind } from '../../model/error-kind.ts'
import { ProviderError } from '../../model/provider-error.ts'
import { isThenable } from '../../model/user-code.ts'
import { type Admission, Refused } from '../admission.ts'
import { type AdvisoryFallback, askAdvisory, ignoreStoreError, type OnStoreError } from '../advisory-store.ts'
import type { AttemptContext } from '../middleware.ts'
import type { BreakerPermit, BreakerResult } from './breaker-permit.ts'
import type { BreakerTransition } from './breaker-state.ts'
import { breakerNow, type CircuitBreaker } from './circuit-breaker.ts'
import { longestWait } from '../../model/retry-after.ts'

/** How a thrown value counts for the breaker; the gate's classifier is passed in so policies stay below the gate. */
export type JudgeFailure = (error: unknown) => BreakerResult

/** What the breaker policy reports to, and which breaker an attempt asks. */
export interface BreakerHooks {
  /** A breaker changed state (reported as `breaker_state`). */
  readonly onTransition: (t: BreakerTransition, ctx: AttemptContext) => void
  /** The store failed: the call went through. @default ignored */
  readonly onStoreError?: OnStoreError
  /** The key of the breaker an attempt asks. @default the attempt's provider name */
  readonly keyOf?: (ctx: AttemptContext) => string
}

/**
 * The breaker policy: asks the provider's breaker before the call and records how it ended. An
 * open breaker fails the attempt at once with kind `circuit-open` (and the time left of its
 * cooldown), never calling the provider. A failing store lets the call through: the breaker is
 * advisory. A half-open probe that another policy refused gives its slot back, counted as ignored.
 */
export function breakerAdmission(breaker: CircuitBreaker, judge: JudgeFailure, hooks: BreakerHooks): Admission<BreakerPermit | undefined> {
  const { onTransition, onStoreError = ignoreStoreError, keyOf = providerName } = hooks
  // On an in-process store the breaker answers at once: no promise per acquire or record.
  const now = breakerNow(breaker)
  // A breaker whose store cannot answer admits the call.
  const fallback: AdvisoryFallback<undefined> = { through: undefined, onStoreError }
  const verdict = (permit: BreakerPermit | undefined, ctx: AttemptContext): BreakerPermit | undefined | Refused => {
    if (permit === undefined) return undefined
    if (permit.transition !== undefined) onTransition(permit.transition, ctx)
    if (permit.allowed) return permit
    return new Refused(
      new ProviderError(`the circuit breaker of provider "${ctx.provider}" is open`, {
        kind: 'circuit-open',
        provider: ctx.provider,
        // A record opened on a clock ahead of ours (a shared store) may ask for more than a timer can hold.
        ...(permit.retryAfterMs !== undefined ? { retryAfterMs: longestWait(Math.max(0, permit.retryAfterMs)) } : {}),
      }),
    )
  }
  const heard = (t: BreakerTransition | undefined, ctx: AttemptContext): void => {
    if (t !== undefined) onTransition(t, ctx)
  }
  // How an admitted call ended, recorded at once on an in-process store, else awaited; a store failure is only heard.
  const recordAs = (ctx: AttemptContext, permit: BreakerPermit | undefined, result: BreakerResult): void | Promise<void> => {
    if (permit === undefined) return
    let answer: BreakerTransition | undefined | PromiseLike<BreakerTransition | undefined>
    try {
      answer = now !== undefined ? now.record(keyOf(ctx), permit, result) : breaker.record(keyOf(ctx), permit, result)
    } catch (error) {
      onStoreError(error, ctx)
      return
    }
    if (!isThenable(answer)) return heard(answer, ctx)
    return heardLater(answer, ctx)
  }
  // The awaited paths live apart: what their callbacks capture is allocated only when they run (measured: about 60 B per attempt).
  const heardLater = (answer: PromiseLike<BreakerTransition | undefined>, ctx: AttemptContext): Promise<void> =>
    Promise.resolve(answer).then(
      (t) => heard(t, ctx),
      (error: unknown) => onStoreError(error, ctx),
    )
  const acquireLater = (ctx: AttemptContext): BreakerPermit | undefined | Refused | Promise<BreakerPermit | undefined | Refused> =>
    askAdvisory(
      () => breaker.acquire(keyOf(ctx)),
      (permit: BreakerPermit) => verdict(permit, ctx),
      fallback,
      ctx,
    )
  return {
    name: 'circuitBreaker',
    admit(ctx) {
      if (now !== undefined) {
        try {
          return verdict(now.acquire(keyOf(ctx)), ctx)
        } catch (error) {
          onStoreError(error, ctx)
          return undefined
        }
      }
      return acquireLater(ctx)
    },
    undo(ctx, permit) {
      // A probe admitted for an attempt that never called its provider: its slot comes back.
      if (permit?.allowed === true && permit.probe) void recordAs(ctx, permit, 'ignored')
    },
    done(ctx, permit, result, error) {
      return recordAs(ctx, permit, result === undefined ? judge(error) : 'success')
    },
  }
}

/**
 * How the breaker counts a failed call of this kind: failures of a transient kind
 * (`TRANSIENT_KINDS`, malformed responses included), refused credentials (`auth`: every call will
 * fail until someone fixes them) and unknown errors count, anything else (an abort, a budget
 * denial) says nothing about the provider. A rate-limit refusal fails the attempt before the
 * call, so it never reaches the breaker.
 */
export function breakerResult(kind: ErrorKind): BreakerResult {
  return isTransientKind(kind) || kind === 'unknown' || kind === 'auth' ? 'failure' : 'ignored'
}

/** The breaker of an attempt's provider, by default: the one of its name. */
function providerName(ctx: AttemptContext): string {
  return ctx.provider
}
