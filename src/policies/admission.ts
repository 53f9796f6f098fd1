import { isThenable } from '../model/user-code.ts'
import { libraryLink, type Link } from './link.ts'
import type { AttemptContext, AttemptResult } from './middleware.ts'

/**
 * A policy of the attempt chain in two halves (the rate limit, the breaker, the budget): `admit`
 * before the call, `done` after it. The chain asks every policy at once and hears from them at once,
 * so policies sharing a store (Redis) cost one round trip before the call and one after it, however
 * many there are; their verdicts are still taken in the table's order (the first refusal wins).
 * `P` is the policy's own token of an admitted attempt (a breaker's permit, a budget's reservation).
 */
export interface Admission<P = unknown> {
  /** Named in errors and traces. */
  readonly name: string
  /**
   * Admits the attempt (its token), or refuses it with a {@link Refused}. A throw (or a rejection)
   * fails the attempt with that error, as a refusal does.
   */
  admit(ctx: AttemptContext): P | Refused | PromiseLike<P | Refused>
  /** Gives back what `admit` took, when an earlier policy refused the attempt. Never throws. */
  undo?(ctx: AttemptContext, pass: P): void
  /**
   * Hears how an admitted attempt ended: its result, or the error it failed with. May throw (or
   * reject) to fail an attempt that answered (a budget that cannot charge it).
   */
  done?(ctx: AttemptContext, pass: P, result: AttemptResult | undefined, error: unknown): void | PromiseLike<void>
}

/** Hears a failure of a policy's store (a `StateLostError` among them), whatever the policy then does. */
export type OnStoreError = (error: unknown, ctx: AttemptContext) => void

/** The {@link OnStoreError} of a policy made without one: the failure is the policy's business alone. */
export const ignoreStoreError: OnStoreError = () => undefined

/** A policy's refusal: the error the attempt fails with, and what to report when it is the refusal thrown. */
export class Refused {
  readonly error: unknown
  readonly report: (() => void) | undefined
  constructor(error: unknown, report?: () => void) {
    this.error = error
    this.report = report
  }
}

/** Where an admission's answer went wrong: it threw or rejected instead of answering. */
class Failed {
  readonly error: unknown
  constructor(error: unknown) {
    this.error = error
  }
}

type Verdict = unknown // a token, a Refused or a Failed

/**
 * The policies as one link: every `admit` is started before any is awaited; the first refusal (in
 * the order given) fails the attempt and the others give back what they took; otherwise the rest of
 * the chain runs, then every `done` is started before any is awaited.
 */
export function admissionLink(policies: readonly Admission[]): Link {
  const list = policies.slice()
  return libraryLink(function admission(ctx, next) {
    const verdicts: Verdict[] = new Array(list.length)
    let waiting: Promise<void>[] | undefined
    for (let i = 0; i < list.length; i++) {
      let answer: unknown
      try {
        answer = (list[i] as Admission).admit(ctx)
      } catch (error) {
        answer = new Failed(error)
      }
      if (isThenable(answer)) {
        const at = i
        ;(waiting ??= []).push(
          Promise.resolve(answer).then(
            (v) => {
              verdicts[at] = v
            },
            (error: unknown) => {
              verdicts[at] = new Failed(error)
            },
          ),
        )
      } else verdicts[i] = answer
    }
    if (waiting === undefined) return proceed(list, verdicts, ctx, next)
    return Promise.all(waiting).then(() => proceed(list, verdicts, ctx, next))
  })
}

function proceed(
  list: readonly Admission[],
  verdicts: Verdict[],
  ctx: AttemptContext,
  next: (ctx: AttemptContext) => Promise<AttemptResult>,
): Promise<AttemptResult> {
  for (let i = 0; i < verdicts.length; i++) {
    const v = verdicts[i]
    if (!(v instanceof Refused) && !(v instanceof Failed)) continue
    undoAll(list, verdicts, ctx)
    if (v instanceof Refused) v.report?.()
    return Promise.reject(v.error)
  }
  return next(ctx).then(
    (result) => ended(list, verdicts, ctx, result, undefined, false),
    (error: unknown) => ended(list, verdicts, ctx, undefined, error, true),
  )
}

/** Gives back what every admitting policy took; a refusing or failing one took nothing. */
function undoAll(list: readonly Admission[], verdicts: Verdict[], ctx: AttemptContext): void {
  for (let i = 0; i < verdicts.length; i++) {
    const v = verdicts[i]
    const policy = list[i] as Admission
    if (v instanceof Refused || v instanceof Failed || policy.undo === undefined) continue
    try {
      policy.undo(ctx, v)
    } catch {
      // An undo only gives back what it held; what it cannot give back expires.
    }
  }
}

/** Every `done` started, then awaited: the first failure (in order) fails an attempt that answered. */
function ended(
  list: readonly Admission[],
  verdicts: Verdict[],
  ctx: AttemptContext,
  result: AttemptResult | undefined,
  error: unknown,
  failed: boolean,
): AttemptResult | Promise<AttemptResult> {
  let firstError: Failed | undefined
  let waiting: PromiseLike<unknown>[] | undefined
  for (let i = 0; i < list.length; i++) {
    const policy = list[i] as Admission
    if (policy.done === undefined) continue
    let answer: unknown
    try {
      answer = policy.done(ctx, verdicts[i], result, error)
    } catch (e) {
      firstError ??= new Failed(e)
      continue
    }
    if (isThenable(answer)) {
      ;(waiting ??= []).push(answer)
    }
  }
  const settle = (late: Failed | undefined): AttemptResult => {
    const failure = firstError ?? late
    if (failed) throw error
    if (failure !== undefined) throw failure.error
    return result as AttemptResult
  }
  if (waiting === undefined) return settle(undefined)
  return Promise.allSettled(waiting).then((all) => {
    const rejected = all.find((r): r is PromiseRejectedResult => r.status === 'rejected')
    return settle(rejected === undefined ? undefined : new Failed(rejected.reason))
  })
}
