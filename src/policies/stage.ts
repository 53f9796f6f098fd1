import { abortReason } from '../model/abort-reason.ts'
import { raceAbort } from '../model/race-abort.ts'
import { isThenable } from '../model/user-code.ts'
import { type AttemptSlot, attemptContext, closeSlot, freshSlot, type Stoppable, slotOf, stopSlot, withSlot } from './attempt-slot.ts'
import { refusal } from './entry-check.ts'
import type { AttemptContext, AttemptResult, Terminal } from './middleware.ts'

/**
 * A library link in two halves around the rest of the chain (the deadline, the check, the
 * policies, the meter). Consecutive stages of a chain run as one step: every `enter` in order, the
 * rest of the chain, then every `leave` (or `fail`) in reverse order, with one promise reaction for
 * the lot where links would take one each. `T` is the stage's token of an entered attempt.
 */
export interface Stage<T = unknown> {
  /** Named in errors and traces. */
  readonly name: string
  /** True for a stage that may settle the attempt before the rest answers, through `run.stop` (the deadline). */
  readonly stops?: boolean
  /**
   * Before the rest of the chain: the stage's token, or a promise of it. A throw or a rejection
   * fails the attempt (the stages entered before it hear `fail`; the rest never runs).
   */
  enter?(ctx: AttemptContext, run: StageRun): T | PromiseLike<T>
  /** The rest of the chain never ran after `enter` answered (the attempt settled meanwhile): give back what it took. */
  undo?(ctx: AttemptContext, token: T): void
  /** The rest answered: the result to hand outward (or a promise of it); a throw fails the attempt. */
  leave?(ctx: AttemptContext, token: T, result: AttemptResult): AttemptResult | PromiseLike<AttemptResult>
  /** The rest failed with `error`, or the attempt was stopped: heard (and awaited unless stopped); the attempt fails with `error` whatever it does. */
  fail?(ctx: AttemptContext, token: T, error: unknown): unknown
}

/** Stages side by side, as one link runs them (made once per chain). */
export interface StageGroup {
  readonly stages: readonly Stage[]
  /** Some stage may stop the attempt (see {@link Stage.stops}). */
  readonly stops: boolean
  /** Every stage only leaves (the check, the meter): nothing to enter, fail or stop. */
  readonly leavesOnly: boolean
}

/** `stages` as a {@link StageGroup}. */
export function stageGroup(stages: readonly Stage[]): StageGroup {
  const list = stages.slice()
  return {
    stages: list,
    stops: list.some((s) => s.stops === true),
    leavesOnly: list.every((s) => s.stops !== true && s.enter === undefined && s.fail === undefined),
  }
}

/**
 * Runs a group of stages around `rest` for one attempt. A context without the gate's slot (a link
 * called on its own) gets a fresh one, and the outer signal it carried is raced here as the gate
 * races its run's signal.
 */
export function runStages(group: StageGroup, ctx: AttemptContext, rest: Terminal): Promise<AttemptResult> {
  if (slotOf(ctx) !== undefined) {
    // Stages that only leave need no run of their own: the rest's answer goes through their leaves.
    if (group.leavesOnly) return callRest(rest, ctx).then((result) => leaveAll(group.stages, ctx, group.stages.length - 1, result))
    return new StageRun(group.stages, group.stops, ctx, rest).go()
  }
  const outer = ctx.request.signal
  const slot = freshSlot(outer)
  const run = new StageRun(group.stages, group.stops, withSlot(ctx, slot), rest)
  const work = outer === undefined ? run.go() : raceAbort(run.go(), outer, () => run.stop(abortReason(outer)))
  const close = (): void => closeSlot(slot)
  work.then(close, close)
  return work
}

function callRest(rest: Terminal, ctx: AttemptContext): Promise<AttemptResult> {
  try {
    return rest(ctx)
  } catch (error) {
    return Promise.reject(error)
  }
}

/** The leaves of stages `at` down to 0 of a group that only leaves: a throw fails the attempt as it is. */
function leaveAll(stages: readonly Stage[], ctx: AttemptContext, at: number, answer: AttemptResult): AttemptResult | Promise<AttemptResult> {
  let result = answer
  for (let i = at; i >= 0; i--) {
    const stage = stages[i] as Stage
    if (stage.leave === undefined) continue
    const left = stage.leave(ctx, undefined, result)
    if (isThenable(left)) return Promise.resolve(left).then((value) => leaveAll(stages, ctx, i - 1, value))
    result = left
  }
  return result
}

/**
 * One attempt's pass through a run of stages; `stop` settles it early (see {@link Stage.stops}),
 * and is how the outermost run hears that its attempt settled from outside (the run's signal).
 */
export class StageRun implements Stoppable {
  readonly #stages: readonly Stage[]
  readonly #rest: Terminal
  readonly #ctx: AttemptContext
  readonly #stops: boolean
  #tokens: unknown[] | undefined = undefined
  /** Stages `[0, open)` entered and not yet left: the ones a stop tells. */
  #open = 0
  #over = false
  #resolve: ((result: AttemptResult) => void) | undefined = undefined
  #reject: ((error: unknown) => void) | undefined = undefined

  constructor(stages: readonly Stage[], stops: boolean, ctx: AttemptContext, rest: Terminal) {
    this.#stages = stages
    this.#rest = rest
    this.#stops = stops
    const slot = slotOf(ctx) as AttemptSlot
    // A stage that may stop the attempt hands on the attempt's signal, made only if a link reads it.
    this.#ctx = stops ? attemptContext(ctx, slot) : ctx
    slot.runner ??= this
  }

  /** The attempt's context as the stages see it. */
  get context(): AttemptContext {
    return this.#ctx
  }

  go(): Promise<AttemptResult> {
    if (!this.#stops) return this.#enter(0)
    // One executor for every run (it finds the run being started here): no closure per attempt (about 70 B).
    StageRun.#starting = this
    return new Promise<AttemptResult>(StageRun.#start)
  }

  static #starting: StageRun | undefined
  static #start(resolve: (result: AttemptResult) => void, reject: (error: unknown) => void): void {
    const run = StageRun.#starting as StageRun
    StageRun.#starting = undefined
    run.#resolve = resolve
    run.#reject = reject
    const out = run.#enter(0)
    // The rest's answer settles this promise itself (no reaction in between); a refusal or a wait comes back here.
    if (out !== DELIVERED) out.then((value) => ((value as unknown) === DELIVERED ? undefined : resolve(value)), reject)
  }

  /** Settles a stopping run's promise with what its stages made of the rest's answer. */
  #deliver(out: AttemptResult | Promise<AttemptResult>): void {
    if (isThenable(out)) out.then(this.#resolve, this.#reject)
    else this.#resolve?.(out)
  }

  /**
   * Settles the attempt now with `reason` (its deadline passed, or its run's signal aborted): the
   * signal it handed on aborts, the stages still open hear `fail` (not awaited), and whatever the
   * rest answers later is dropped.
   */
  stop(reason: unknown): void {
    if (this.#over) return
    this.#over = true
    const slot = slotOf(this.#ctx)
    if (slot !== undefined) stopSlot(slot, reason)
    for (let i = this.#open - 1; i >= 0; i--) {
      this.#open = i
      const stage = this.#stages[i] as Stage
      if (stage.fail === undefined) continue
      try {
        const heard = stage.fail(this.#ctx, this.#tokens?.[i], reason)
        if (isThenable(heard)) Promise.resolve(heard).catch(ignore)
      } catch {
        // The attempt fails with the stop's reason whatever a stage does with it.
      }
    }
    this.#reject?.(reason)
  }

  #enter(from: number): Promise<AttemptResult> {
    const stages = this.#stages
    const ctx = this.#ctx
    for (let i = from; i < stages.length; i++) {
      const stage = stages[i] as Stage
      if (stage.enter !== undefined) {
        const refused = refusal(ctx, stage.name)
        if (refused !== undefined) return this.#fail(i, refused)
        let token: unknown
        try {
          token = stage.enter(ctx, this)
        } catch (error) {
          return this.#fail(i, error)
        }
        if (isThenable(token)) {
          const at = i
          return Promise.resolve(token).then(
            (value) => this.#entered(at, value),
            (error: unknown) => this.#fail(at, error),
          )
        }
        if (token !== undefined) (this.#tokens ??= new Array(stages.length))[i] = token
      }
      this.#open = i + 1
    }
    return this.#call()
  }

  /** A stage's `enter` answered later: on to the next, unless the attempt settled meanwhile (then it gives back its token). */
  #entered(at: number, token: unknown): Promise<AttemptResult> {
    const stage = this.#stages[at] as Stage
    if (this.#over) {
      try {
        stage.undo?.(this.#ctx, token)
      } catch {
        // An undo only gives back what it held; what it cannot give back expires.
      }
      return Promise.reject(STOPPED)
    }
    if (token !== undefined) (this.#tokens ??= new Array(this.#stages.length))[at] = token
    this.#open = at + 1
    return this.#enter(at + 1)
  }

  #call(): Promise<AttemptResult> {
    const ctx = this.#ctx
    const last = this.#stages.length
    let pending: Promise<AttemptResult>
    try {
      pending = this.#rest(ctx)
    } catch (error) {
      return this.#fail(last, error)
    }
    if (this.#resolve !== undefined) {
      pending.then(
        (result) => this.#deliver(this.#leave(last - 1, result)),
        (error: unknown) => this.#deliver(this.#fail(last, error)),
      )
      return DELIVERED
    }
    return pending.then(
      (result) => this.#leave(last - 1, result),
      (error: unknown) => this.#fail(last, error),
    )
  }

  /** The leaves of stages `at` down to 0, in that order; a throw (or rejection) turns to the fails of those outside. */
  #leave(at: number, answer: AttemptResult): AttemptResult | Promise<AttemptResult> {
    if (this.#over) return answer
    let result = answer
    for (let i = at; i >= 0; i--) {
      this.#open = i
      const stage = this.#stages[i] as Stage
      if (stage.leave === undefined) continue
      let left: AttemptResult | PromiseLike<AttemptResult>
      try {
        left = stage.leave(this.#ctx, this.#tokens?.[i], result)
      } catch (error) {
        return this.#fail(i, error)
      }
      if (isThenable(left)) {
        const below = i - 1
        return Promise.resolve(left).then(
          (value) => this.#leave(below, value),
          (error: unknown) => this.#fail(i, error),
        )
      }
      result = left
    }
    return result
  }

  /** The attempt failed with `error` inside stage `at`: the fails of stages `at - 1` down to 0 are heard (awaited), then it rejects. */
  #fail(at: number, error: unknown): Promise<never> {
    if (this.#over) return Promise.reject(error)
    for (let i = at - 1; i >= 0; i--) {
      this.#open = i
      const stage = this.#stages[i] as Stage
      if (stage.fail === undefined) continue
      let heard: unknown
      try {
        heard = stage.fail(this.#ctx, this.#tokens?.[i], error)
      } catch {
        continue
      }
      if (isThenable(heard)) {
        const below = i
        return Promise.resolve(heard).then(
          () => this.#fail(below, error),
          () => this.#fail(below, error),
        )
      }
    }
    return Promise.reject(error)
  }
}

// What a stopping run's steps answer once the rest's answer will settle its promise itself (see #deliver): never a value.
const DELIVERED = Object.freeze({ delivered: true }) as unknown as Promise<AttemptResult>

// What a late continuation rejects with once the attempt was stopped: nobody hears it (the stop settled the attempt).
const STOPPED = Symbol('stopped')

function ignore(): void {}
