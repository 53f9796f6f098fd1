import { abortReason } from '../model/abort-reason.ts'
import type { ModelRequest } from '../model/request.ts'
import { withSignalGetter } from '../model/request-copy.ts'
import type { ModelResponse } from '../model/response.ts'
import type { Usage } from '../model/usage.ts'
import { isThenable } from '../model/user-code.ts'
import { CLOSED, AttemptControl, untilStopped } from './attempt-control.ts'
import type { AttemptContext } from './middleware.ts'
import type { Stage } from './stage.ts'

/** The innermost step of the chain, the provider call: the bare response (a user's link sees `{ response }`) to `ctx.request`. */
export type ResponseCall = (ctx: AttemptContext, attempt: ChainAttempt) => ModelResponse | Promise<ModelResponse>

/**
 * One attempt as the library's stages see it: its context, what the meter found, and its control (closed, what runs on
 * close, its signal, its stop). It is also the chain's one executor, in two halves the caller (the run loop) takes in turn:
 * `runChain` enters every stage and calls the innermost step, answering its answer; `leave` takes that answer out through
 * the stages (or `failOpen` tells them the failure). Each answers at once when nothing waited, else a promise.
 */
export abstract class ChainAttempt implements AttemptContext {
  abstract readonly runId: string
  abstract readonly baseRequest: ModelRequest
  abstract readonly provider: string
  abstract readonly model: string | undefined
  abstract readonly metadata: Readonly<Record<string, unknown>> | undefined
  abstract readonly turn: number | undefined
  /** The run's signal: its abort stops the attempt. */
  abstract readonly runSignal: AbortSignal | undefined
  readonly attempt: number
  readonly providerIdx: number
  /** The request as the chain hands it on (with the attempt's own signal under a deadline: see {@link signal}). */
  readonly request: ModelRequest
  /** What the meter read of the answer: the shape-checked response, its usage and price (`unpriced`: why there is none). */
  response: ModelResponse | undefined = undefined
  usage: Usage | undefined = undefined
  costUsd = 0
  unpriced: string | undefined = undefined
  /** The provider's own answer behind user links: one that fails the attempt after it does not make it free (the meter prices it). */
  answered: ModelResponse | undefined = undefined
  /** The attempt's control, made when first needed (an attempt nothing may stop and nobody holds on to makes none). */
  #control: AttemptControl | undefined
  #stages: readonly Stage<unknown, ChainAttempt>[] = NO_STAGES
  #inner: ResponseCall | undefined = undefined
  /** The tokens of the stages that entered, by stage index. */
  #tokens: unknown[] | undefined = undefined
  /** Stages `[0, open)` entered and not yet left: the ones a stop tells. */
  #open = 0

  /** Attempt `attempt` on provider `providerIdx`, sending `request`; `ownSignal`: it carries the attempt's own signal, made when first read (under a deadline). */
  constructor(attempt: number, request: ModelRequest, providerIdx: number, ownSignal: boolean) {
    this.attempt = attempt
    this.providerIdx = providerIdx
    this.#control = ownSignal ? new AttemptControl(true) : undefined
    this.request = ownSignal ? withSignalGetter(request, this, signalOf) : request
  }

  /**
   * Takes the attempt into `stages` around `inner`: every `enter`, then the innermost call; its answer (for {@link leave}), or
   * a rejection once the stages it passed heard the failure. An attempt that may be stopped (`stops`: a stage may stop it;
   * or the run has a signal) answers a promise of its own, which its stop rejects at once whatever the rest still waits for.
   */
  runChain(stages: readonly Stage<unknown, ChainAttempt>[], inner: ResponseCall, stops: boolean): unknown {
    this.#stages = stages
    this.#inner = inner
    const outer = this.runSignal
    if (!stops && outer === undefined) return this.#enter(0)
    return new Promise<unknown>((resolve, reject) => {
      this.#made().reject = reject
      if (outer !== undefined) this.#follow(outer)
      const out = this.#enter(0)
      if (isThenable(out)) out.then(resolve, reject)
      else resolve(out)
    })
  }

  /** True once the attempt settled: no link may be entered and no provider called from it any more. */
  get closed(): boolean {
    return this.#control?.closed === true
  }

  /** Runs `fn` when the attempt settles (at once if it has): how a stage lets go of what it holds. */
  onClose(fn: () => void): void {
    if (this.closed) return fn()
    ;(this.#made().closers ??= []).push(fn)
  }

  /** Settles the attempt: its closers run (a throw of one is contained). */
  close(): void {
    const control = this.#control
    if (control === undefined) return void (this.#control = CLOSED)
    const closers = control.closers
    control.closed = true
    control.closers = undefined
    for (const fn of closers ?? []) {
      try {
        fn()
      } catch {
        // A closer only lets go of what it held; a failure to do so is the store's (a reservation expires anyway).
      }
    }
  }

  /** The attempt's own signal, made now if nobody read it: it aborts with the run's signal, and on {@link stop}. */
  get signal(): AbortSignal {
    const control = this.#made()
    if (control.controller !== undefined) return control.controller.signal
    const controller = new AbortController()
    control.controller = controller
    const outer = this.runSignal
    if (control.stopped) controller.abort(control.reason)
    else if (outer?.aborted === true) controller.abort(outer.reason)
    else if (outer !== undefined && !control.closed) {
      const follow = (): void => controller.abort(outer.reason)
      outer.addEventListener('abort', follow, { once: true })
      this.onClose(() => outer.removeEventListener('abort', follow))
    }
    return controller.signal
  }

  /** Why the attempt may not go on with `request` (stopped, or aborted), without making its own signal to ask; `undefined` while it may. */
  abortedWhy(request: ModelRequest): unknown {
    const control = this.#control
    if (control?.stopped === true) return control.reason
    const outer = this.runSignal
    if (outer?.aborted === true) return abortReason(outer)
    // The attempt's own signal aborts only with those two: it is not made to be asked.
    if (request === this.request && control?.ownSignal === true) return undefined
    const signal = request.signal
    return signal?.aborted === true ? abortReason(signal) : undefined
  }

  /**
   * Settles the attempt now with `reason` (its deadline passed, or its run's signal aborted): its signal aborts, the stages
   * still open hear `fail` (not awaited), and whatever the rest answers later is dropped.
   */
  stop(reason: unknown): void {
    const control = this.#made()
    if (control.stopped) return
    control.stopped = true
    control.reason = reason
    control.controller?.abort(reason)
    // The attempt fails with the stop's reason whatever a stage does with it.
    this.#hear(reason, false)
    control.reject?.(reason)
  }

  /** The attempt's control, made now if it has none (one closed with none gets its own, closed). */
  #made(): AttemptControl {
    const control = this.#control
    if (control !== undefined && control !== CLOSED) return control
    const made = new AttemptControl(false)
    made.closed = control === CLOSED
    this.#control = made
    return made
  }

  /** The run's abort stops the attempt (the listener goes when the attempt settles). */
  #follow(outer: AbortSignal): void {
    if (outer.aborted) return this.stop(abortReason(outer))
    const stop = (): void => this.stop(abortReason(outer))
    outer.addEventListener('abort', stop, { once: true })
    this.onClose(() => outer.removeEventListener('abort', stop))
  }

  #enter(from: number): unknown {
    const stages = this.#stages
    for (let i = from; i < stages.length; i++) {
      const stage = stages[i] as Stage<unknown, ChainAttempt>
      if (stage.enter !== undefined) {
        // Stopped already (the run's signal aborted as the attempt started): nothing more is entered.
        if (this.#control?.stopped === true) return this.#fail(i, this.#control.reason)
        let token: unknown
        try {
          token = stage.enter(this)
        } catch (error) {
          return this.#fail(i, error)
        }
        if (isThenable(token)) {
          return Promise.resolve(token).then(
            (value) => this.#entered(i, value),
            (error: unknown) => this.#fail(i, error),
          )
        }
        if (token !== undefined) (this.#tokens ??= [])[i] = token
      }
      this.#open = i + 1
    }
    return this.#call()
  }

  /** A stage's `enter` answered later: on to the next, unless the attempt was stopped meanwhile (then it gives its token back). */
  #entered(at: number, token: unknown): unknown {
    const control = this.#control
    if (control?.stopped === true) {
      try {
        ;(this.#stages[at] as Stage<unknown, ChainAttempt>).undo?.(this, token)
      } catch {
        // An undo only gives back what it held; what it cannot give back expires.
      }
      return Promise.reject(control.reason)
    }
    if (token !== undefined) (this.#tokens ??= [])[at] = token
    this.#open = at + 1
    return this.#enter(at + 1)
  }

  /** The innermost call, every stage entered: its answer as it comes (the caller hands it to {@link leave}, or its failure to {@link failOpen}). */
  #call(): unknown {
    const last = this.#stages.length
    if (this.#control?.stopped === true) return this.#fail(last, this.#control.reason)
    try {
      return (this.#inner as ResponseCall)(this, this)
    } catch (error) {
      return this.#fail(last, error)
    }
  }

  /**
   * The second half of the chain, once the innermost call answered: every `leave`, in reverse order, handing each other the
   * response (a throw or rejection turns to the fails of those outside); the attempt's response, at once when no leave waited.
   */
  leave(answer: unknown): ModelResponse | Promise<ModelResponse> {
    const left = this.#leave(this.#stages.length - 1, answer as ModelResponse)
    return isThenable(left) ? untilStopped(this.#control, left, true) : left
  }

  /**
   * The attempt failed with `error` while stages were open (the innermost call failed): they hear `fail`, outermost last; a
   * promise when one answered a promise (awaited). Stages the failure already passed through are not told again.
   */
  failOpen(error: unknown): Promise<void> | undefined {
    const heard = this.#control?.stopped === true ? undefined : this.#hear(error, true)
    return heard === undefined ? undefined : untilStopped(this.#control, heard, false)
  }

  /** The stages still open hear `error`, outermost last: a promise when one answered a promise and `wait` (awaited, then the rest). */
  #hear(error: unknown, wait: boolean): Promise<void> | undefined {
    for (let i = this.#open - 1; i >= 0; i--) {
      this.#open = i
      const stage = this.#stages[i] as Stage<unknown, ChainAttempt>
      if (stage.fail === undefined) continue
      let heard: unknown
      try {
        heard = stage.fail(this, this.#tokens?.[i], error)
      } catch {
        continue
      }
      if (!isThenable(heard)) continue
      if (!wait) {
        Promise.resolve(heard).catch(ignore)
        continue
      }
      const next = (): Promise<void> | undefined => (this.#control?.stopped === true ? undefined : this.#hear(error, true))
      return Promise.resolve(heard).then(next, next)
    }
    return undefined
  }

  /** The leaves of stages `at` down to 0, in that order; a throw (or rejection) turns to the fails of those outside. */
  #leave(at: number, answer: ModelResponse): ModelResponse | Promise<ModelResponse> {
    if (this.#control?.stopped === true) return Promise.reject(this.#control.reason)
    let response = answer
    for (let i = at; i >= 0; i--) {
      this.#open = i
      const stage = this.#stages[i] as Stage<unknown, ChainAttempt>
      if (stage.leave === undefined) continue
      let left: ModelResponse | PromiseLike<ModelResponse>
      try {
        left = stage.leave(this, this.#tokens?.[i], response)
      } catch (error) {
        return this.#fail(i, error)
      }
      if (isThenable(left)) {
        return Promise.resolve(left).then(
          (value) => this.#leave(i - 1, value),
          (error: unknown) => this.#fail(i, error),
        )
      }
      response = left
    }
    return response
  }

  /** The attempt failed with `error` inside stage `at`: the fails of stages `at - 1` down to 0 are heard (awaited), then it rejects. */
  #fail(at: number, error: unknown): Promise<never> {
    this.#open = Math.min(this.#open, at)
    const heard = this.#control?.stopped === true ? undefined : this.#hear(error, true)
    return heard === undefined ? Promise.reject(error) : heard.then(() => Promise.reject(error))
  }
}

const NO_STAGES: readonly Stage<unknown, ChainAttempt>[] = Object.freeze([]) // before its chain: shared, none made per attempt
/** The attempt's own signal, read through its request (see `withSignalGetter`). */
function signalOf(attempt: ChainAttempt): AbortSignal {
  return attempt.signal
}
function ignore(): void {}
