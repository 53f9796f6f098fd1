import type { AttemptContext, AttemptResult } from './middleware.ts'

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
  /** Where each stage's token is kept in a run: its place among the stages that enter, -1 for one that does not. */
  readonly tokenAt: readonly number[]
}

/** `stages` as a {@link StageGroup}. */
export function stageGroup(stages: readonly Stage[]): StageGroup {
  const list = stages.slice()
  return {
    stages: list,
    stops: list.some((s) => s.stops === true),
    leavesOnly: list.every((s) => s.stops !== true && s.enter === undefined && s.fail === undefined),
    tokenAt: list.map((s, i) => (s.enter === undefined ? -1 : list.slice(0, i).filter((before) => before.enter !== undefined).length)),
  }
}

/** What a stage's `enter` is handed: the attempt's pass through its stages, which a stopping stage may settle early. */
export interface StageRun {
  /** The attempt's context as the stages see it. */
  readonly context: AttemptContext
  /** Settles the attempt now with `reason` (see {@link Stage.stops}). */
  stop(reason: unknown): void
}
