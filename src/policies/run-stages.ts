import { abortReason } from '../model/abort-reason.ts'
import { raceAbort } from '../model/race-abort.ts'
import { isThenable } from '../model/user-code.ts'
import { type AttemptSlot, closeSlot, freshSlot, type SettleAttempt, slotOf, takeSettle, withSlot } from './attempt-slot.ts'
import type { AttemptContext, AttemptResult, Terminal } from './middleware.ts'
import { answersBareResponse, asResult } from './response-terminal.ts'
import type { Stage, StageGroup } from './stage.ts'
import { StageRunner } from './stage-runner.ts'

/**
 * Runs a group of stages around `rest` for one attempt. A context without the gate's slot (a link
 * called on its own) gets a fresh one, and the outer signal it carried is raced here as the gate
 * races its run's signal.
 */
export function runStages(group: StageGroup, ctx: AttemptContext, rest: Terminal): Promise<AttemptResult> {
  const slot = slotOf(ctx)
  if (slot !== undefined) {
    // Stages that only leave need no run of their own: the rest's answer goes through their leaves.
    if (group.leavesOnly) return leavesAfter(group.stages, ctx, rest, slot)
    return new StageRunner(group, ctx, rest).go()
  }
  const outer = ctx.request.signal
  const fresh = freshSlot(outer)
  const run = new StageRunner(group, withSlot(ctx, fresh), rest)
  const work = outer === undefined ? run.go() : raceAbort(run.go(), outer, () => run.stop(abortReason(outer)))
  const close = (): void => closeSlot(fresh)
  work.then(close, close)
  return work
}

/**
 * A group that only leaves, around the rest. Outermost in a chain whose run has no signal of its own
 * to race (nothing can settle the attempt but its answer), it takes the attempt's settle.
 */
function leavesAfter(stages: readonly Stage[], ctx: AttemptContext, rest: Terminal, slot: AttemptSlot): Promise<AttemptResult> {
  const bare = answersBareResponse(rest)
  const settle = slot.runner === undefined && slot.raced === undefined ? takeSettle(slot) : undefined
  const called = callRest(rest, ctx)
  const last = stages.length - 1
  if (settle === undefined) return called.then((answer) => leaveAll(stages, ctx, last, asResult(answer, bare)))
  return called.then(
    (answer) => settledAfter(settle, slot, stages, ctx, asResult(answer, bare)),
    (error: unknown) => settle(slot, true, error),
  ) as Promise<AttemptResult>
}

/** The leaves, then the attempt's settle: failed when a leave threw or rejected. */
function settledAfter(settle: SettleAttempt, slot: AttemptSlot, stages: readonly Stage[], ctx: AttemptContext, answer: AttemptResult): unknown {
  let left: AttemptResult | Promise<AttemptResult>
  try {
    left = leaveAll(stages, ctx, stages.length - 1, answer)
  } catch (error) {
    return settle(slot, true, error)
  }
  if (!isThenable(left)) return settle(slot, false, undefined)
  return left.then(
    () => settle(slot, false, undefined),
    (error: unknown) => settle(slot, true, error),
  )
}

function callRest(rest: Terminal, ctx: AttemptContext): Promise<unknown> {
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
