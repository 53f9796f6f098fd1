import type { ErrorKind } from '../../model/error-kind.ts'
import type { ModelRequest } from '../../model/request.ts'
import { keepShape } from '../../model/keep-shape.ts'
import { ChainAttempt } from '../../policies/chain-attempt.ts'
import type { EventTags } from '../../events/event-map.ts'
import type { EventHub } from '../../events/event-hub.ts'
import type { MeterTotals } from '../../policies/meter.ts'
import type { CompiledSchema } from '../../validation/index.ts'
import type { ValidationFailure } from '../../validation/validation-failure.ts'
import type { OutputModeState } from '../output-mode/output-mode-state.ts'
import type { ResolvedProvider } from '../resolved-provider.ts'
import { frozenAttemptBase } from '../frozen-attempt-request.ts'

/** What an attempt reads of its run (a part of `RunView`). */
export interface AttemptRun<T> {
  readonly g: {
    readonly providers: readonly ResolvedProvider[]
    readonly events: EventHub
    readonly repair: boolean
    readonly now: () => number
    readonly stops: boolean
    readonly outputModes: OutputModeState
  }
  readonly runId: string
  readonly signal: AbortSignal | undefined
  readonly providerIdx: number
  readonly base: ModelRequest
  readonly metadata: Readonly<Record<string, unknown>> | undefined
  readonly turn: number | undefined
  readonly tags: EventTags | undefined
  readonly settings: { readonly schema: CompiledSchema<T> | undefined; readonly failuresBefore: number }
  readonly history: readonly string[]
  readonly meter: MeterTotals
}

const NO_REPAIRS: readonly string[] = Object.freeze([])

/**
 * One attempt of a gate run: while its chain runs, the context every stage reads (the run's facts
 * through the run), the chain's control, the meter's reading and the check's verdict; once it ended
 * and closed, its outcome (see `endAttempt`, the only writer after the close): one object per attempt.
 */
export class GateAttempt<T> extends ChainAttempt {
  readonly run: AttemptRun<T>
  readonly startedAt: number
  /** The check's verdict, written once it checked: the kind it implies (`undefined` until then), the value, the failure, the repairs. */
  kind: ErrorKind | undefined = undefined
  value: T | string | undefined = undefined
  failure: ValidationFailure | undefined = undefined
  repairs: readonly string[] = NO_REPAIRS
  /** Written when the attempt ends: what it failed with, the wait its failure asked for, when it ended. */
  error: unknown = undefined
  retryAfterMs: number | undefined = undefined
  endedAt = 0

  /** The run's next attempt (number `attempt`, started at `startedAt`), sending `request` (with its own signal under a deadline). */
  constructor(run: AttemptRun<T>, attempt: number, request: ModelRequest, startedAt: number) {
    super(attempt, request, run.providerIdx, run.g.stops)
    this.run = run
    this.startedAt = startedAt
  }

  get runId(): string {
    return this.run.runId
  }

  get runSignal(): AbortSignal | undefined {
    return this.run.signal
  }

  get baseRequest(): ModelRequest {
    return frozenAttemptBase(this.run)
  }

  get provider(): string {
    return (this.run.g.providers[this.providerIdx] as ResolvedProvider).name
  }

  get model(): string | undefined {
    return this.run.base.model
  }

  get metadata(): Readonly<Record<string, unknown>> | undefined {
    return this.run.metadata
  }

  get turn(): number | undefined {
    return this.run.turn
  }

  /** From the start to the end of the attempt, in ms. */
  get latencyMs(): number {
    return this.endedAt - this.startedAt
  }
}

// An attempt that holds nothing, kept for its hidden class (see keepShape); its price a fraction, as a priced attempt's is.
{
  const witness = new GateAttempt(
    Object.freeze({ providerIdx: 0, signal: undefined, g: Object.freeze({ stops: false }) }) as AttemptRun<unknown>,
    0,
    Object.freeze({ messages: [] }),
    Number.NaN,
  )
  witness.costUsd = Number.MIN_VALUE
  witness.endedAt = Number.MIN_VALUE
  keepShape(witness)
}
