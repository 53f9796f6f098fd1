import { isThenable } from '../model/user-code.ts'
import type { ModelResponse } from '../model/response.ts'
import type { ChainAttempt } from './chain-attempt.ts'
import type { Stage } from './stage.ts'

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
  admit(attempt: ChainAttempt): P | Refused | PromiseLike<P | Refused>
  /** Gives back what `admit` took, when an earlier policy refused the attempt. Never throws. */
  undo?(attempt: ChainAttempt, pass: P): void
  /**
   * Hears how an admitted attempt ended: its response (the meter's reading is on the attempt), or
   * the error it failed with. May throw (or reject) to fail an attempt that answered (a budget that
   * cannot charge it).
   */
  done?(attempt: ChainAttempt, pass: P, response: ModelResponse | undefined, error: unknown): void | PromiseLike<void>
}

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
 * The policies as one stage of the chain: every `admit` is started before any is awaited; the
 * first refusal (in the order given) fails the attempt and the others give back what they took;
 * otherwise the rest of the chain runs, then every `done` is started before any is awaited. Its
 * token is the policies' verdicts, in order.
 */
export function admissionStage(policies: readonly Admission[]): Stage<Verdict[], ChainAttempt> {
  const list = policies.slice()
  /**
   * Every `done` heard how the attempt ended (its response, or the error it failed with), started before any is awaited:
   * the first failure of one, in order (a `Failed`), or `undefined`; a promise of it when one answered a promise.
   */
  function hearDone(
    ctx: ChainAttempt,
    verdicts: Verdict[],
    response: ModelResponse | undefined,
    error: unknown,
  ): Failed | undefined | Promise<Failed | undefined> {
    let firstError: Failed | undefined
    let waiting: PromiseLike<unknown>[] | undefined
    for (let i = 0; i < list.length; i++) {
      const policy = list[i] as Admission
      if (policy.done === undefined) continue
      try {
        const answer = policy.done(ctx, verdicts[i], response, error)
        if (isThenable(answer)) (waiting ??= []).push(answer)
      } catch (e) {
        firstError ??= new Failed(e)
      }
    }
    if (waiting === undefined) return firstError
    return Promise.allSettled(waiting).then((all) => {
      const rejected = all.find((r): r is PromiseRejectedResult => r.status === 'rejected')
      return firstError ?? (rejected === undefined ? undefined : new Failed(rejected.reason))
    })
  }
  return {
    name: 'admission',
    enter(ctx) {
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
      if (waiting === undefined) return admitted(list, verdicts, ctx)
      return Promise.all(waiting).then(() => admitted(list, verdicts, ctx))
    },
    undo(ctx, verdicts) {
      undoAll(list, verdicts, ctx)
    },
    leave(ctx, verdicts, response) {
      return answered(hearDone(ctx, verdicts, response, undefined), response)
    },
    // Every `done` heard the failure; the attempt's error stands whatever they do.
    fail: (ctx, verdicts, error) => hearDone(ctx, verdicts, undefined, error),
  }
}

/** The verdicts, when every policy admitted the attempt; else the first refusal (in order) is thrown, the others' tokens given back. */
function admitted(list: readonly Admission[], verdicts: Verdict[], ctx: ChainAttempt): Verdict[] {
  for (let i = 0; i < verdicts.length; i++) {
    const v = verdicts[i]
    if (!(v instanceof Refused) && !(v instanceof Failed)) continue
    undoAll(list, verdicts, ctx)
    if (v instanceof Refused) v.report?.()
    throw v.error
  }
  return verdicts
}
/** Gives back what every admitting policy took; a refusing or failing one took nothing. */
function undoAll(list: readonly Admission[], verdicts: Verdict[], ctx: ChainAttempt): void {
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

/** The response once every `done` heard it (`heard`: the first failure of one, later when one waited); else the attempt fails with that failure. */
function answered(heard: Failed | undefined | Promise<Failed | undefined>, response: ModelResponse): ModelResponse | Promise<ModelResponse> {
  return isThenable(heard) ? heard.then((failed) => unlessFailed(failed, response)) : unlessFailed(heard, response)
}

/** `response`, unless a policy failed hearing it. */
function unlessFailed(failed: Failed | undefined, response: ModelResponse): ModelResponse {
  if (failed !== undefined) throw failed.error
  return response
}
