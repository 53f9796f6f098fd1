import { isThenable } from '../model/user-code.ts'
import { keepShape } from '../model/keep-shape.ts'
import { type AttemptSlot, attemptContext, freshSlot, withSlot, type SettleAttempt, type Stoppable, slotOf, stopSlot, takeSettle } from './attempt-slot.ts'
import { refusal } from './entry-check.ts'
import type { AttemptContext, AttemptResult, Terminal } from './middleware.ts'
import { answersBareResponse, asResult } from './response-terminal.ts'
import type { Stage, StageGroup, StageRun } from './stage.ts'

/**
 * One attempt's pass through a run of stages; `stop` settles it early (see {@link Stage.stops}),
 * and is how the outermost run hears that its attempt settled from outside (the run's signal). The
 * outermost run also takes the attempt's {@link SettleAttempt} when the gate offers one: its promise
 * then settles with what the gate made of the attempt, in the step it takes anyway.
 */
export class StageRunner implements StageRun, Stoppable {
  readonly #group: StageGroup
  readonly #rest: Terminal
  readonly #ctx: AttemptContext
  readonly #slot: AttemptSlot
  readonly #settle: SettleAttempt | undefined
  /** What the run is and where it is, as bits (see {@link BARE} and below): one field where four took 32 B. */
  #state: number
  // The tokens of the first two stages that enter in fields, past those in an array: a run of 4 stages held an array of 4 (about 80 B).
  #token0: unknown = undefined
  #token1: unknown = undefined
  #tokens: unknown[] | undefined = undefined
  /** Stages `[0, open)` entered and not yet left: the ones a stop tells. */
  #open = 0
  #resolve: ((result: unknown) => void) | undefined = undefined
  #reject: ((error: unknown) => void) | undefined = undefined

  constructor(group: StageGroup, ctx: AttemptContext, rest: Terminal) {
    this.#group = group
    this.#rest = rest
    const slot = slotOf(ctx) as AttemptSlot
    this.#slot = slot
    // A stage that may stop the attempt hands on the attempt's signal, made only if a link reads it.
    this.#ctx = group.stops ? attemptContext(ctx, slot) : ctx
    let settle: SettleAttempt | undefined
    if (slot.runner === undefined) {
      slot.runner = this
      settle = takeSettle(slot)
    }
    this.#settle = settle
    this.#state = (answersBareResponse(rest) ? BARE : 0) | (group.stops || settle !== undefined ? OWN : 0)
  }

  /** The attempt's context as the stages see it. */
  get context(): AttemptContext {
    return this.#ctx
  }

  go(): Promise<AttemptResult> {
    if ((this.#state & OWN) === 0) return this.#enter(0)
    // One executor for every run (it finds the run being started here): no closure per attempt (about 70 B).
    StageRunner.#starting = this
    return new Promise<AttemptResult>(StageRunner.#start)
  }

  static #starting: StageRunner | undefined
  static #start(resolve: (result: AttemptResult) => void, reject: (error: unknown) => void): void {
    const run = StageRunner.#starting as StageRunner
    StageRunner.#starting = undefined
    run.#resolve = resolve as (result: unknown) => void
    run.#reject = reject
    const out = run.#enter(0)
    // The rest's answer settles this promise itself (no reaction in between); a refusal or a wait comes back here.
    if (out !== DELIVERED)
      out.then(
        (value) => ((value as unknown) === DELIVERED ? undefined : run.#done(value)),
        (error: unknown) => run.#failed(error),
      )
  }

  /** Settles an own promise with what its stages made of the rest's answer. */
  #deliver(out: AttemptResult | Promise<AttemptResult>): void {
    if (isThenable(out))
      out.then(
        (value) => this.#done(value),
        (error: unknown) => this.#failed(error),
      )
    else this.#done(out)
  }

  #done(result: AttemptResult): void {
    this.#once(false, result)
  }

  #failed(error: unknown): void {
    this.#once(true, error)
  }

  /** Settles the own promise unless it was settled already (a stop came first). */
  #once(failed: boolean, payload: unknown): void {
    if ((this.#state & SETTLED) !== 0) return
    this.#state |= SETTLED
    this.#finish(failed, payload)
  }

  /** The token stage `i` entered with. */
  #token(i: number): unknown {
    const at = this.#group.tokenAt[i] as number
    return at === 0 ? this.#token0 : at === 1 ? this.#token1 : this.#tokens?.[at - 2]
  }

  #keep(i: number, token: unknown): void {
    const at = this.#group.tokenAt[i] as number
    if (at === 0) this.#token0 = token
    else if (at === 1) this.#token1 = token
    else (this.#tokens ??= [])[at - 2] = token
  }

  get #over(): boolean {
    return (this.#state & OVER) !== 0
  }

  /** Settles the own promise: as the attempt's settle says when this run took it, else with the result or the error. */
  #finish(failed: boolean, payload: unknown): void {
    const settle = this.#settle
    if (settle === undefined) {
      if (failed) this.#reject?.(payload)
      else this.#resolve?.(payload)
      return
    }
    try {
      ;(this.#resolve as (value: unknown) => void)(settle(this.#slot, failed, failed ? payload : undefined))
    } catch (error) {
      ;(this.#reject as (error: unknown) => void)(error)
    }
  }

  /**
   * Settles the attempt now with `reason` (its deadline passed, or its run's signal aborted): the
   * signal it handed on aborts, the stages still open hear `fail` (not awaited), and whatever the
   * rest answers later is dropped.
   */
  stop(reason: unknown): void {
    if (this.#over) return
    this.#state |= OVER
    stopSlot(this.#slot, reason)
    for (let i = this.#open - 1; i >= 0; i--) {
      this.#open = i
      const stage = this.#group.stages[i] as Stage
      if (stage.fail === undefined) continue
      try {
        const heard = stage.fail(this.#ctx, this.#token(i), reason)
        if (isThenable(heard)) Promise.resolve(heard).catch(ignore)
      } catch {
        // The attempt fails with the stop's reason whatever a stage does with it.
      }
    }
    if ((this.#state & SETTLED) !== 0 || (this.#state & OWN) === 0) return
    this.#state |= SETTLED
    // Settled from a timer or an abort listener: what the gate makes of it runs as a job of its own, never inside whoever aborted.
    if (this.#settle === undefined) this.#finish(true, reason)
    else queueMicrotask(() => this.#finish(true, reason))
  }

  #enter(from: number): Promise<AttemptResult> {
    const stages = this.#group.stages
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
        if (token !== undefined) this.#keep(i, token)
      }
      this.#open = i + 1
    }
    return this.#call()
  }

  /** A stage's `enter` answered later: on to the next, unless the attempt settled meanwhile (then it gives back its token). */
  #entered(at: number, token: unknown): Promise<AttemptResult> {
    const stage = this.#group.stages[at] as Stage
    if (this.#over) {
      try {
        stage.undo?.(this.#ctx, token)
      } catch {
        // An undo only gives back what it held; what it cannot give back expires.
      }
      return Promise.reject(STOPPED)
    }
    if (token !== undefined) this.#keep(at, token)
    this.#open = at + 1
    return this.#enter(at + 1)
  }

  #call(): Promise<AttemptResult> {
    const ctx = this.#ctx
    const last = this.#group.stages.length
    let pending: Promise<unknown>
    try {
      pending = this.#rest(ctx)
    } catch (error) {
      return this.#fail(last, error)
    }
    if ((this.#state & OWN) !== 0) {
      pending.then(
        (answer) => this.#deliver(this.#leave(last - 1, asResult(answer, (this.#state & BARE) !== 0))),
        (error: unknown) => this.#deliver(this.#fail(last, error)),
      )
      return DELIVERED
    }
    return pending.then(
      (answer) => this.#leave(last - 1, asResult(answer, (this.#state & BARE) !== 0)),
      (error: unknown) => this.#fail(last, error),
    )
  }

  /** The leaves of stages `at` down to 0, in that order; a throw (or rejection) turns to the fails of those outside. */
  #leave(at: number, answer: AttemptResult): AttemptResult | Promise<AttemptResult> {
    if (this.#over) return answer
    let result = answer
    for (let i = at; i >= 0; i--) {
      this.#open = i
      const stage = this.#group.stages[i] as Stage
      if (stage.leave === undefined) continue
      let left: AttemptResult | PromiseLike<AttemptResult>
      try {
        left = stage.leave(this.#ctx, this.#token(i), result)
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
      const stage = this.#group.stages[i] as Stage
      if (stage.fail === undefined) continue
      let heard: unknown
      try {
        heard = stage.fail(this.#ctx, this.#token(i), error)
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

// The bits of a run's state: the rest answers the bare response (see `bareResponseTerminal`); the run settles
// a promise of its own (it may stop, or it settles the attempt: see `go`); it was stopped; its promise settled.
const BARE = 1
const OWN = 2
const OVER = 4
const SETTLED = 8

// What a run with its own promise answers once the rest's answer will settle that promise itself (see #deliver): never a value.
const DELIVERED = Object.freeze({ delivered: true }) as unknown as Promise<AttemptResult>

// What a late continuation rejects with once the attempt was stopped: nobody hears it (the stop settled the attempt).
const STOPPED = Symbol('stopped')

function ignore(): void {}

// A run of no stages that holds nothing, kept for its hidden class (see keepShape).
keepShape(
  new StageRunner({ stages: [], stops: false, leavesOnly: false, tokenAt: [] }, withSlot({} as AttemptContext, freshSlot(undefined)), () =>
    Promise.reject(new Error('never called')),
  ),
)
