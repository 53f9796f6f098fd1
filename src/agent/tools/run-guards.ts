import { messageOf } from '../../model/message-of.ts'
import { raceAbort } from '../../policies/deadline/race-abort.ts'
import type { GuardContext, GuardVerdict, ToolGuard } from './guard.ts'

/** The first rejection among guards, with the guard's name for logs; `undefined` when all accept. */
export interface GuardRejection {
  readonly guard: string
  readonly reason: string
}

/**
 * Runs guards in order and stops at the first rejection. A guard that throws, or answers something
 * that is not a verdict, rejects: a broken check must not let a call through. A guard still
 * pending when `signal` aborts makes this reject with the abort (a guard never holds a run past its
 * signal).
 */
export async function runGuards<I>(guards: readonly ToolGuard<I>[], args: I, ctx: GuardContext, signal?: AbortSignal): Promise<GuardRejection | undefined> {
  for (const guard of guards) {
    let verdict: unknown
    try {
      verdict = await raceAbort(callGuard(guard, args, ctx), signal)
    } catch (error) {
      if (signal?.aborted === true) throw error
      return { guard: nameOf(guard), reason: messageOf(error) }
    }
    const reason = rejectionOf(verdict)
    if (reason !== undefined) return { guard: nameOf(guard), reason }
  }
  return undefined
}

/** `undefined` for an accepting verdict, else the reason of the rejection (anything that is not `{ ok: true }` rejects). */
function rejectionOf(verdict: unknown): string | undefined {
  try {
    const v = verdict as Partial<GuardVerdict & { reason: unknown }> | null | undefined
    if (typeof v !== 'object' || v === null) return 'rejected by a guard'
    if (v.ok === true) return undefined
    return typeof v.reason === 'string' && v.reason !== '' ? v.reason : 'rejected by a guard'
  } catch {
    return 'rejected by a guard (its verdict cannot be read)'
  }
}

function callGuard<I>(guard: ToolGuard<I>, args: I, ctx: GuardContext): Promise<unknown> {
  try {
    return Promise.resolve(guard(args, ctx))
  } catch (error) {
    return Promise.reject(error)
  }
}

function nameOf(guard: ToolGuard<never>): string {
  return typeof guard.name === 'string' && guard.name !== '' ? guard.name : 'anonymous guard'
}
