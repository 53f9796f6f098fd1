import { messageOf } from '../../model/message-of.ts'
import { raceAbort } from '../../model/race-abort.ts'
import { callAsPromise } from '../../model/call-as-promise.ts'
import { dataCopy } from '../../model/data-copy.ts'
import type { GuardContext, GuardVerdict, ToolGuard } from './guard.ts'

/** The first rejection among guards, with the guard's name for logs; `undefined` when all accept. */
export interface GuardRejection {
  readonly guard: string
  readonly reason: string
  /** Where the problem is, when the guard said. */
  readonly path: readonly (string | number)[] | undefined
}

/**
 * Runs guards in order, on a copy of `args`, and stops at the first rejection. A guard that throws, or answers something
 * that is not a verdict, rejects: a broken check must not let a call through. A guard still
 * pending when `signal` aborts makes this reject with the abort (a guard never holds a run past its
 * signal).
 */
export async function runGuards<I>(guards: readonly ToolGuard<I>[], args: I, ctx: GuardContext, signal?: AbortSignal): Promise<GuardRejection | undefined> {
  if (guards.length === 0) return undefined
  // The guards read a copy: one that edits its argument never rewrites the recorded call or what the tool runs on.
  const own = dataCopy(args)
  for (const guard of guards) {
    let verdict: unknown
    try {
      verdict = await raceAbort(callAsPromise<I, GuardContext, unknown>(guard, own, ctx), signal)
    } catch (error) {
      if (signal?.aborted === true) throw error
      return { guard: nameOf(guard), reason: messageOf(error), path: undefined }
    }
    const rejection = rejectionOf(verdict)
    if (rejection !== undefined) return { guard: nameOf(guard), ...rejection }
  }
  return undefined
}

/** `undefined` for an accepting verdict, else the reason (and path) of the rejection: anything that is not `{ ok: true }` rejects. */
function rejectionOf(verdict: unknown): { readonly reason: string; readonly path: readonly (string | number)[] | undefined } | undefined {
  try {
    const v = verdict as Partial<GuardVerdict & { reason: unknown; path: unknown }> | null | undefined
    if (typeof v !== 'object' || v === null) return { reason: 'rejected by a guard', path: undefined }
    if (v.ok === true) return undefined
    const reason = typeof v.reason === 'string' && v.reason !== '' ? v.reason : 'rejected by a guard'
    return { reason, path: Array.isArray(v.path) ? pathOf(v.path as readonly unknown[]) : undefined }
  } catch {
    return { reason: 'rejected by a guard (its verdict cannot be read)', path: undefined }
  }
}

// The deepest path a rejection keeps: past it the segments say no more about where the problem is.
const MAX_PATH_SEGMENTS = 256

/** A verdict's path as the library reads it: property names and indices only (an object there is no segment, and rendering it could throw). */
function pathOf(path: readonly unknown[]): readonly (string | number)[] {
  return path.slice(0, MAX_PATH_SEGMENTS).filter((s): s is string | number => typeof s === 'string' || typeof s === 'number')
}

/** The guard's stable name (set by `guard(name, check)`; never the function's, which bundlers rename). */
function nameOf(guard: ToolGuard<never>): string {
  const name: unknown = (guard as { guardName?: unknown }).guardName
  return typeof name === 'string' && name !== '' ? name : 'anonymous guard'
}
