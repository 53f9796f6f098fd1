import type { ErrorKind } from '../../model/error-kind.ts'
import { keepShape } from '../../model/keep-shape.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ModelResponse } from '../../model/response.ts'
import { type Usage, ZERO_USAGE } from '../../model/usage.ts'
import type { SettleAttempt, Stoppable } from '../../policies/attempt-slot.ts'
import type { Metered, MeteredAnswer } from '../../policies/meter.ts'
import type { ValidationFailure } from '../../validation/validation-failure.ts'
import type { AttemptOutcome } from '../attempt-outcome.ts'
import type { ResponseCheck } from '../check-response.ts'
import type { GateSlot } from './attempt-slot.ts'
import type { RunView } from './run-view.ts'

const NO_REPAIRS: readonly string[] = Object.freeze([])

/** An attempt's outcome, with when it ended and the meter's reading of its answer. */
export interface AttemptTaken<T> extends AttemptOutcome<T> {
  readonly endedAt: number
  /** The meter's reading of its answer, when it got one (even if a later link failed the attempt). */
  readonly metered: Metered | undefined
}

/**
 * One attempt of a gate run: its slot while the chain runs (what the links find: the meter's
 * reading, the check's verdict, the attempt's signal), then, once ended, its outcome as the loop
 * takes it, read through the check and the meter rather than copied (one object where the slot and
 * a literal outcome of 13 fields took two, about 110 B an attempt). An answer that was metered
 * before a later link failed was paid for all the same.
 */
export class GateAttempt<T> implements GateSlot<T>, AttemptTaken<T> {
  readonly run: RunView<T>
  metered: MeteredAnswer | undefined = undefined
  /** The check's verdict; `undefined` until it checked, and for an attempt that failed. */
  checked: ResponseCheck<T> | undefined = undefined
  value: T | string | undefined = undefined
  closed = false
  raced: AbortSignal | undefined
  closers: (() => void)[] | undefined = undefined
  request: ModelRequest | undefined = undefined
  controller: AbortController | undefined = undefined
  stopped = false
  stopReason: unknown = undefined
  runner: Stoppable | undefined = undefined
  settle: SettleAttempt | undefined
  readonly startedAt: number
  // The outcome, written once by the attempt's end (declared, not initialised: numbers kept as the clock gave them).
  error: unknown = undefined
  kind!: ErrorKind
  retryAfterMs: number | undefined = undefined
  latencyMs!: number
  endedAt!: number

  constructor(run: RunView<T>, settle: SettleAttempt | undefined, startedAt: number) {
    this.run = run
    this.raced = run.signal
    this.settle = settle
    this.startedAt = startedAt
  }

  get response(): ModelResponse | undefined {
    return this.checked === undefined ? undefined : this.metered?.response
  }

  get failure(): ValidationFailure | undefined {
    return this.checked?.failure
  }

  get repairs(): readonly string[] {
    return this.checked?.repairs ?? NO_REPAIRS
  }

  get usage(): Usage {
    return this.metered?.usage ?? ZERO_USAGE
  }

  get costUsd(): number {
    return this.metered?.costUsd ?? 0
  }

  get unpriced(): boolean {
    return this.metered?.unpriced !== undefined
  }
}

// An attempt that holds nothing, kept for its hidden class (see keepShape).
keepShape(new GateAttempt(Object.freeze({ signal: undefined }) as RunView<unknown>, undefined, Number.NaN))
