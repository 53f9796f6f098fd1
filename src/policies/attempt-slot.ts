import { abortReason } from '../model/abort-reason.ts'
import type { ModelRequest } from '../model/request.ts'
import { withSignalGetter } from '../model/request-copy.ts'
import type { MeteredAnswer } from './meter.ts'
import type { AttemptContext } from './middleware.ts'

/**
 * Where the gate's own links of one attempt leave what they found, beside the context every link
 * sees: the meter writes the answer's shape-checked response and its metered cost, which the budget
 * charges (an answer is priced once) and the attempt's outcome reports. Keyed by a symbol the
 * library does not export; the chain copies it with the context.
 */
export const ATTEMPT_SLOT: unique symbol = Symbol('reliability-gate.attempt')

/** What the gate's links of one attempt found; `closed` once the attempt settled (no provider call may start after). */
export interface AttemptSlot {
  metered: MeteredAnswer | undefined
  closed: boolean
  /**
   * The run's signal, whose abort settles the attempt from outside (and stops its chain): the
   * provider call need not race it again; the attempt's own signal follows it once made.
   */
  raced: AbortSignal | undefined
  /** What runs once the attempt settles, even while a link still waits (the attempt's signal letting go of the run's): see {@link onClose}. */
  closers: (() => void)[] | undefined
  /** The attempt's own request, whose `signal` is made the first time it is read (see {@link attemptContext}). */
  request?: ModelRequest | undefined
  /** The attempt's signal, once someone read it: aborts with the run's signal, or with the attempt's stop. */
  controller?: AbortController | undefined
  /** Set once the attempt was stopped from inside (its deadline passed), with why. */
  stopped?: boolean
  stopReason?: unknown
  /** The run of stages outermost in the attempt's chain: told when the attempt settles from outside (see {@link stopAttempt}). */
  runner?: Stoppable | undefined
  /** How the attempt settles, offered to the chain's outermost run of stages (see {@link takeSettle}). */
  settle?: SettleAttempt | undefined
}

/**
 * How an attempt settles once its chain is done: given whether it failed and why, it answers what
 * the chain's promise settles with instead (or throws: the promise rejects with that). The gate
 * offers it in the slot so that the outermost run of stages settles the attempt in the promise step
 * it takes anyway, where a reaction of the gate on the chain's promise would add one per attempt
 * (about 260 B: a promise, a reaction, two closures).
 */
export type SettleAttempt = (slot: AttemptSlot, failed: boolean, error: unknown) => unknown

/**
 * Takes the attempt's {@link SettleAttempt} from its slot: only the first run of stages that asks
 * (the outermost) gets it, and it must then call it exactly once, as its own promise settles.
 */
export function takeSettle(slot: AttemptSlot): SettleAttempt | undefined {
  const settle = slot.settle
  if (settle !== undefined) slot.settle = undefined
  return settle
}

/** What can be told that its attempt settled from outside (the chain's outermost run of stages). */
export interface Stoppable {
  stop(reason: unknown): void
}

/**
 * Tells the attempt's chain that the attempt settled from outside (the run's signal aborted): the
 * stages still open hear `fail` with `reason` now (the budget lets go of its reservation, the
 * breaker hears an abort), whatever the provider does later.
 */
export function stopAttempt(slot: AttemptSlot, reason: unknown): void {
  slot.runner?.stop(reason)
}

/** A context of the chain, with its slot. */
type SlotContext = AttemptContext & { readonly [ATTEMPT_SLOT]: AttemptSlot }

/** A slot for an attempt that did not come from the gate (a link called on its own): `outer` is its signal. */
export function freshSlot(outer: AbortSignal | undefined): AttemptSlot {
  return {
    metered: undefined,
    closed: false,
    raced: outer,
    closers: undefined,
    request: undefined,
    controller: undefined,
    stopped: false,
    stopReason: undefined,
  }
}

/** `ctx` with `slot` as its slot (a copy). */
export function withSlot(ctx: AttemptContext, slot: AttemptSlot): SlotContext {
  return { ...ctx, [ATTEMPT_SLOT]: slot }
}

/** Runs `fn` when the attempt settles (at once if it has): how a link lets go of what it holds without a listener on the signal. */
export function onClose(slot: AttemptSlot, fn: () => void): void {
  if (slot.closed) return fn()
  if (slot.closers === undefined) slot.closers = [fn]
  else slot.closers.push(fn)
}

/** Settles the attempt: no provider call may start from it any more, and its closers run (a throw of one is contained). */
export function closeSlot(slot: AttemptSlot): void {
  slot.closed = true
  const closers = slot.closers
  if (closers === undefined) return
  slot.closers = undefined
  for (const fn of closers) {
    try {
      fn()
    } catch {
      // A closer only lets go of what it held; a failure to do so is the store's (a reservation expires anyway).
    }
  }
}

/** The attempt's slot, when the context came from the gate (a user's own test harness may build contexts without one). */
export function slotOf(ctx: AttemptContext): AttemptSlot | undefined {
  return (ctx as AttemptContext & { readonly [ATTEMPT_SLOT]?: AttemptSlot })[ATTEMPT_SLOT]
}

/**
 * `ctx` with the attempt's own request: a copy whose `signal` is the attempt's signal, made only
 * when a link or the provider reads it (a deadline that is met, with nobody reading the signal,
 * makes no `AbortController` and registers no listener). The signal aborts when the run's signal
 * does and when the attempt is stopped ({@link stopSlot}).
 */
export function attemptContext(ctx: AttemptContext, slot: AttemptSlot): AttemptContext {
  if (slot.request === ctx.request) return ctx
  return { ...ctx, request: attemptRequest(ctx.request, slot) }
}

/** `request` as the attempt's own (see {@link attemptContext}): what the gate gives its chain when the chain has a deadline. */
export function attemptRequest(request: ModelRequest, slot: AttemptSlot): ModelRequest {
  const own = withSignalGetter(request, slot, attemptSignal)
  slot.request = own
  return own
}

/** The attempt's signal (see {@link attemptContext}), made now if nobody read it before. */
export function attemptSignal(slot: AttemptSlot): AbortSignal {
  if (slot.controller !== undefined) return slot.controller.signal
  const controller = new AbortController()
  slot.controller = controller
  const outer = slot.raced
  if (slot.stopped === true) controller.abort(slot.stopReason)
  else if (outer?.aborted === true) controller.abort(outer.reason)
  else if (outer !== undefined && !slot.closed) {
    const follow = (): void => controller.abort(outer.reason)
    outer.addEventListener('abort', follow, { once: true })
    onClose(slot, () => outer.removeEventListener('abort', follow))
  }
  return controller.signal
}

/** Stops the attempt from inside with `reason` (its deadline): its signal, if made, aborts with it. */
export function stopSlot(slot: AttemptSlot, reason: unknown): void {
  if (slot.stopped === true) return
  slot.stopped = true
  slot.stopReason = reason
  slot.controller?.abort(reason)
}

/**
 * Why the attempt of `ctx` may not go on, when its signal aborted or it was stopped, without
 * making the attempt's signal to ask it; `undefined` while it may.
 */
export function abortedWhy(ctx: AttemptContext): unknown {
  const slot = slotOf(ctx)
  if (slot !== undefined && slot.request === ctx.request && slot.request !== undefined) {
    if (slot.stopped === true) return slot.stopReason
    const outer = slot.raced
    return outer?.aborted === true ? abortReason(outer) : undefined
  }
  const signal = ctx.request.signal
  return signal?.aborted === true ? abortReason(signal) : undefined
}
