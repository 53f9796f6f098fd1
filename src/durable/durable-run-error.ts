import { assertObject, assertString } from '../model/argument-checks.ts'
import { hasBrand } from '../model/brand.ts'

const BRAND = Symbol.for('reliability-gate.DurableRunError')

/**
 * Why a durable run cannot go on: a step name used twice in one run (`step-reused`), a replay whose
 * steps differ from the journal (`divergence`: the code changed between the crash and the resume), a
 * journal entry that is not one the port wrote (`corrupt-entry`), an invalid step name
 * (`invalid-step`), or the engine itself failing to run or journal a step (`engine-failed`, its
 * error as `cause`): a step's own failure is journaled, never this.
 */
export type DurableRunErrorKind = 'step-reused' | 'divergence' | 'corrupt-entry' | 'invalid-step' | 'engine-failed'

/** Refuses what would make a durable run replay differently from its first execution. */
export class DurableRunError extends Error {
  override readonly name = 'DurableRunError'
  readonly code = 'ERR_RELIABILITY_DURABLE_RUN'
  readonly kind: DurableRunErrorKind
  /** The run the refused step belongs to. */
  readonly runId: string
  /** The step (or sleep) that was refused. */
  readonly step: string
  readonly [BRAND] = true

  constructor(kind: DurableRunErrorKind, details: { readonly runId: string; readonly step: string; readonly reason: string; readonly cause?: unknown }) {
    assertString(kind, 'DurableRunError: kind')
    assertObject(details, 'DurableRunError: details', '{ runId, step, reason, cause? }')
    super(
      `durable run ${details.runId} (${kind}) at ${JSON.stringify(details.step)}: ${details.reason}`,
      details.cause === undefined ? undefined : { cause: details.cause },
    )
    this.kind = kind
    this.runId = details.runId
    this.step = details.step
  }
}

/** Brand check that works across realms and duplicate package copies. */
export function isDurableRunError(value: unknown): value is DurableRunError {
  return hasBrand(value, BRAND)
}
