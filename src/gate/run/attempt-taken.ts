import type { ErrorKind } from '../../model/error-kind.ts'
import type { ModelResponse } from '../../model/response.ts'
import { type Usage, ZERO_USAGE } from '../../model/usage.ts'
import type { Metered, MeteredAnswer } from '../../policies/meter.ts'
import type { ValidationFailure } from '../../validation/validation-failure.ts'
import type { AttemptOutcome } from '../attempt-outcome.ts'
import type { ResponseCheck } from '../check-response.ts'

const NO_REPAIRS: readonly string[] = Object.freeze([])

/** An attempt's outcome, with when it ended and the meter's reading of its answer. */
export interface AttemptTaken<T> extends AttemptOutcome<T> {
  readonly endedAt: number
  /** The meter's reading of its answer, when it got one (even if a later link failed the attempt). */
  readonly metered: Metered | undefined
}

/**
 * An ended attempt as the loop takes it: the check's verdict (none when the attempt failed) and the
 * meter's reading, read through rather than copied (7 fields where a literal took 13, about 60 B an
 * attempt). An answer that was metered before a later link failed was paid for all the same.
 */
export class TakenAttempt<T> implements AttemptTaken<T> {
  readonly check: ResponseCheck<T> | undefined
  readonly metered: MeteredAnswer | undefined
  readonly error: unknown
  readonly kind: ErrorKind
  readonly #retryAfterMs: number | undefined
  readonly latencyMs: number
  readonly endedAt: number

  /** `check`: the check's verdict of an attempt that answered; `undefined` for one that failed with `error`. */
  constructor(
    check: ResponseCheck<T> | undefined,
    metered: MeteredAnswer | undefined,
    error: unknown,
    kind: ErrorKind,
    retryAfterMs: number | undefined,
    latencyMs: number,
    endedAt: number,
  ) {
    this.check = check
    this.metered = metered
    this.error = error
    this.kind = kind
    this.#retryAfterMs = retryAfterMs
    this.latencyMs = latencyMs
    this.endedAt = endedAt
  }

  get retryAfterMs(): number | undefined {
    return this.#retryAfterMs
  }

  get response(): ModelResponse | undefined {
    return this.check === undefined ? undefined : this.metered?.response
  }

  get failure(): ValidationFailure | undefined {
    return this.check?.failure
  }

  get value(): T | string | undefined {
    return this.check?.value
  }

  get repairs(): readonly string[] {
    return this.check?.repairs ?? NO_REPAIRS
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
