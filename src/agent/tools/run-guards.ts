import type { GuardContext, GuardVerdict, ToolGuard } from './guard.ts'

/** The first rejection among guards, with the guard's name for logs; `undefined` when all accept. */
export interface GuardRejection {
  readonly guard: string
  readonly reason: string
  /** Where the problem is, when the guard said. */
  readonly path: readonly (string | number)[] | undefined
}

/**
 * Runs guards in order and stops at the first rejection. A guard that throws, or answers something
 * that is not a verdict, rejects: a broken check must not let a call through.
 */
export async function runGuards<I>(guards: readonly ToolGuard<I>[], args: I, ctx: GuardContext): Promise<GuardRejection | undefined> {
  for (const guard of guards) {
    let verdict: GuardVerdict
    try {
      verdict = await guard(args, ctx)
    } catch (error) {
      return { guard: guard.guardName, reason: error instanceof Error ? error.message : String(error), path: undefined }
    }
    if (verdict?.ok === true) continue
    const reason = typeof verdict?.reason === 'string' && verdict.reason !== '' ? verdict.reason : 'rejected by a guard'
    const path = Array.isArray(verdict?.path) ? verdict.path : undefined
    return { guard: guard.guardName, reason, path }
  }
  return undefined
}
