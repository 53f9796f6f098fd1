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
  return new AdmissionStage(policies.slice())
}

class AdmissionStage implements Stage<Verdict[], ChainAttempt> {
  readonly name = 'admission'
  readonly #list: readonly Admission[]

  constructor(list: readonly Admission[]) {
    this.#list = list
  }

  enter(ctx: ChainAttempt): Verdict[] | Promise<Verdict[]> {
    const list = this.#list
    const verdicts: Verdict[] = new Array(list.length)
    let waiting: Promise<void>[] | undefined
    for (let i = 0; i < list.length; i++) {
      let answer: unknown
      try {
        answer = (list[i] as Admission).admit(ctx)
      } catch (error) {
        answer = new Failed(error)
      }
      if (!isThenable(answer)) {
        verdicts[i] = answer
        continue
      }
      const at = i
      const took = (v: unknown): void => void (verdicts[at] = v)
      ;(waiting ??= []).push(Promise.resolve(answer).then(took, (error: unknown) => took(new Failed(error))))
    }
    if (waiting === undefined) return this.#admitted(verdicts, ctx)
    return Promise.all(waiting).then(() => this.#admitted(verdicts, ctx))
  }

  /** Gives back what every admitting policy took; a refusing or failing one took nothing. */
  undo(ctx: ChainAttempt, verdicts: Verdict[]): void {
    for (let i = 0; i < verdicts.length; i++) {
      const v = verdicts[i]
      const policy = this.#list[i] as Admission
      if (v instanceof Refused || v instanceof Failed || policy.undo === undefined) continue
      try {
        policy.undo(ctx, v)
      } catch {
        // An undo only gives back what it held; what it cannot give back expires.
      }
    }
  }

  /** The response once every `done` heard it; else the attempt fails with the first failure (in order). */
  leave(ctx: ChainAttempt, verdicts: Verdict[], response: ModelResponse): ModelResponse | Promise<ModelResponse> {
    const heard = this.#hearDone(ctx, verdicts, response, undefined)
    return isThenable(heard) ? heard.then((failed) => unlessFailed(failed, response)) : unlessFailed(heard, response)
  }

  /** Every `done` heard the failure; the attempt's error stands whatever they do. */
  fail(ctx: ChainAttempt, verdicts: Verdict[], error: unknown): unknown {
    return this.#hearDone(ctx, verdicts, undefined, error)
  }

  /** The verdicts, when every policy admitted the attempt; else the first refusal (in order) is thrown, the others' tokens given back. */
  #admitted(verdicts: Verdict[], ctx: ChainAttempt): Verdict[] {
    for (const v of verdicts) {
      if (!(v instanceof Refused) && !(v instanceof Failed)) continue
      this.undo(ctx, verdicts)
      if (v instanceof Refused) v.report?.()
      throw v.error
    }
    return verdicts
  }

  /**
   * Every `done` heard how the attempt ended (its response, or the error it failed with), started before any is awaited:
   * the first failure of one, in order (a `Failed`), or `undefined`; a promise of it when one answered a promise.
   */
  #hearDone(ctx: ChainAttempt, verdicts: Verdict[], response: ModelResponse | undefined, error: unknown): Failed | undefined | Promise<Failed | undefined> {
    let firstError: Failed | undefined
    let waiting: PromiseLike<unknown>[] | undefined
    for (let i = 0; i < this.#list.length; i++) {
      const policy = this.#list[i] as Admission
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
}

/** `response`, unless a policy failed hearing it. */
function unlessFailed(failed: Failed | undefined, response: ModelResponse): ModelResponse {
  if (failed !== undefined) throw failed.error
  return response
}
