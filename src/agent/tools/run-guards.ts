import type { GuardContext, GuardVerdict, ToolGuard } from './guard.ts'

/** The first rejection among guards, with the guard's name for logs; `undefined` when all accept. */
export interface GuardRejection {
  readonly guard: string
  readonly reason: string
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
      return { guard: nameOf(guard), reason: error instanceof Error ? error.message : String(error) }
    }
    if (verdict?.ok === true) continue
    const reason = typeof verdict?.reason === 'string' && verdict.reason !== '' ? verdict.reason : 'rejected by a guard'
    return { guard: nameOf(guard), reason }
  }
  return undefined
}

function nameOf(guard: ToolGuard<never>): string {
  return guard.name === '' ? 'anonymous guard' : guard.name
}
