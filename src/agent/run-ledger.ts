import type { AttemptRecord } from '../gate/attempt-record.ts'
import { ReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import { addUsage, ZERO_USAGE, type Usage } from '../model/usage.ts'

const NO_ATTEMPTS: readonly AttemptRecord[] = Object.freeze([])

/** What one gate call (or a whole run) spent: a result, a fail-fast error and the ledger carry the same three fields. */
export interface Spent {
  readonly attempts: readonly AttemptRecord[]
  readonly usage: Usage
  readonly costUsd: number
}

/**
 * Everything one agent run spent, over all its gate calls (each tool turn and each tool-argument
 * retry is a gate call of its own): attempts, usage and cost, failed attempts included.
 */
export class RunLedger {
  // The first gate call's own log is adopted as it is (most runs make one); copied before a second is added.
  #attempts: readonly AttemptRecord[] = NO_ATTEMPTS
  #usage: Usage = ZERO_USAGE
  // Declared, then set to 0: the field starts as any value, not as a small integer that a first cost
  // would turn into a boxed double by replacing the class's hidden class (dropped at the next full GC).
  #costUsd: number
  #gateCalls = 0
  #toolArgFailures = 0

  constructor() {
    this.#costUsd = 0
  }

  get attempts(): readonly AttemptRecord[] {
    return this.#attempts
  }
  get usage(): Usage {
    return this.#usage
  }
  get costUsd(): number {
    return this.#costUsd
  }
  /** Attempts so far whose cost could not be priced. */
  get unpricedAttempts(): number {
    let n = 0
    for (const a of this.#attempts) if (a.unpriced) n++
    return n
  }
  /** Counts one tool-argument validation failure. */
  toolArgsFailed(): void {
    this.#toolArgFailures++
  }

  /** Validation failures of the run so far: final answers (in the gate calls' attempts) and tool arguments. */
  get validationFailures(): number {
    let failures = this.#toolArgFailures
    for (const attempt of this.#attempts) if (attempt.validationStage !== undefined) failures++
    return failures
  }

  /** What the run spent, as its result carries it: every attempt, the last one, usage and cost. */
  spent(): Spent & { readonly lastAttempt: AttemptRecord | undefined } {
    return { attempts: this.#attempts, lastAttempt: this.#attempts.at(-1), usage: this.#usage, costUsd: this.#costUsd }
  }

  /** Gate calls so far; 0 before the first. */
  get gateCalls(): number {
    return this.#gateCalls
  }

  /** Adds what one gate call spent (a result, or the error it failed with). */
  add(spent: Spent): void {
    this.#gateCalls++
    if (this.#attempts.length === 0) {
      this.#attempts = spent.attempts
      this.#usage = spent.usage
      this.#costUsd = spent.costUsd
      return
    }
    this.#attempts = this.#attempts.concat(spent.attempts)
    this.#usage = addUsage(this.#usage, spent.usage)
    this.#costUsd += spent.costUsd
  }

  /**
   * The error to throw for a run that failed: the gate's own error when it was the run's only gate
   * call (nothing to add), otherwise the same kind and reason carrying the whole run's attempts,
   * usage and cost.
   */
  widen(error: ReliabilityFailFastError): ReliabilityFailFastError {
    if (error.attempts.length === this.#attempts.length && error.costUsd === this.#costUsd) return error
    return new ReliabilityFailFastError({
      kind: error.kind,
      reason: error.reason,
      phase: error.phase,
      runId: error.runId,
      attempts: [...this.#attempts],
      usage: this.#usage,
      costUsd: this.#costUsd,
      validationError: error.validationError,
      cause: error.cause,
    })
  }
}
