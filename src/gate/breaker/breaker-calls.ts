import { isTransientKind, type ErrorKind } from '../../model/error-kind.ts'
import type { BreakerPermit, BreakerResult } from './breaker-permit.ts'
import type { BreakerTransition } from './breaker-state.ts'
import type { CircuitBreaker } from './circuit-breaker.ts'

/** Asks the breaker for a permit; a failing store lets the call through (the breaker is advisory). */
export async function acquirePermit(
  breaker: CircuitBreaker,
  provider: string,
  onTransition: (t: BreakerTransition) => void,
): Promise<BreakerPermit | undefined> {
  let permit: BreakerPermit
  try {
    permit = await breaker.acquire(provider)
  } catch {
    return undefined
  }
  if (permit.transition !== undefined) onTransition(permit.transition)
  return permit
}

/** Records a call's result with the breaker; a failing store is ignored (the breaker is advisory). */
export async function recordResult(
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

/** How the breaker counts a call: transport failures count, an answer is a success, anything else is ignored. */
export function breakerResult(error: unknown, kind: ErrorKind): BreakerResult {
  if (error === undefined) return 'success'
  return isTransientKind(kind) || kind === 'unknown' ? 'failure' : 'ignored'
}
