import { option, optionsContract } from '../../model/options-contract.ts'

/**
 * A guard's verdict on a tool call's arguments. A rejection may say where the problem is (`path`,
 * property names and array indices), for the `validation_failed` event and the feedback.
 */
export type GuardVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string; readonly path?: readonly (string | number)[] }

/** What a guard knows about the call it checks. */
export interface GuardContext {
  /** Name of the tool being called. */
  readonly tool: string
  /** Id of the model's tool call. */
  readonly callId: string
  /** 0 for the model's first attempt at this call, then 1, 2, ... for each argument retry. */
  readonly retry: number
  /** Name of the agent (as in the log line's `ext=`). */
  readonly agent: string
}

/** The check a guard runs; may be async. */
export type GuardCheck<I = unknown> = (args: I, ctx: GuardContext) => GuardVerdict | Promise<GuardVerdict>

/**
 * A check of a tool call's arguments, run before `execute` on the first attempt AND on every retry
 * input. Make one with {@link guard}: it carries an explicit, stable `guardName` (a function's own
 * name does not survive bundlers, and the name reaches the model in the tool result).
 *
 * A rejection is never retried (the model is told why, in a `BLOCKED` tool result); it is reported
 * as a validation failure of the arguments (`validation_failed`, stage `tool-args`) and logged
 * `no_retry` on the first attempt, `fabricated_id_on_retry` on a retry's input. A guard that throws
 * rejects the call with its message.
 *
 * A guard sees arguments that passed the tool's schema, typed as the tool's input, unless it is
 * marked `checksRawInput` (like `idShapeGuard`): it then sees every input, valid or not, before
 * the schema, so a fabricated ID is caught even in otherwise broken arguments.
 */
export type ToolGuard<I = unknown> = GuardCheck<I> & {
  /** The guard's name in tool results, events and logs. */
  readonly guardName: string
  readonly checksRawInput?: boolean
}

/** Options of {@link guard}. */
export interface GuardOptions {
  /** Run on every input, before the schema, with the arguments untyped. @default false */
  readonly checksRawInput?: boolean
}

const NAME = /^[A-Za-z0-9_.:-]{1,64}$/

/** The contract of {@link GuardOptions}. */
export const GUARD_OPTIONS = optionsContract<GuardOptions>('guard', { checksRawInput: option.boolean() })

/**
 * Makes a tool guard with a stable name.
 *
 * @example
 * const refundLimit = guard('refundLimit', (args: { amount: number }) =>
 *   args.amount <= 500 ? { ok: true } : { ok: false, reason: 'refunds above $500 need a human', path: ['amount'] })
 * tool({ name: 'issue_refund', description: 'Refund an order', input: Refund, guards: [refundLimit], execute })
 */
export function guard<I = unknown>(name: string, check: GuardCheck<I>, options: GuardOptions = {}): ToolGuard<I> {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new TypeError(`guard: name must be 1-64 letters, digits, '_', '-', '.' or ':', got ${JSON.stringify(name)}`)
  }
  if (typeof check !== 'function') throw new TypeError(`guard '${name}': check must be a function`)
  GUARD_OPTIONS.check(options)
  const named: GuardCheck<I> = (args, ctx) => check(args, ctx)
  return Object.freeze(Object.assign(named, { guardName: name, ...(options.checksRawInput === true ? { checksRawInput: true } : {}) }))
}

/** Throws unless every entry is a guard made by {@link guard} (or `idShapeGuard`). */
export function assertGuards(guards: unknown, where: string): void {
  if (!Array.isArray(guards)) throw new TypeError(`${where}: expected an array of guards`)
  for (const [i, g] of guards.entries()) {
    if (typeof g !== 'function' || typeof (g as Partial<ToolGuard>).guardName !== 'string') {
      throw new TypeError(`${where}: guard #${i} has no name: make it with guard('name', check), so the name the model sees survives bundling`)
    }
  }
}
