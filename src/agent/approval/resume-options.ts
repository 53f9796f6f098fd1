import { RUN_OPTION_CHECKS } from '../../gate/run-options-contract.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import type { RunOptions } from '../run-input.ts'

/** Options of `session.resume(approvalId, options)`: a run's (its id is the paused run's), and the resume's lease. */
export interface ResumeOptions extends Pick<RunOptions, 'signal' | 'metadata' | 'runTimeoutMs'> {
  /**
   * How long this resume holds the approval, renewed every third of it while its run goes on:
   * another process may resume it only once this lapses with the resume unfinished (its process
   * died between the claim and the end of the run, or its store stopped answering it). The
   * tool's `execute` gets an `idempotencyKey` (`<runId>:<turn>:<callId>`) so a call in flight at such
   * a death has one effect. Whole ms. @default 60_000
   */
  readonly leaseMs?: number
}

/** How long a resume holds its approval by default: one minute. */
export const DEFAULT_LEASE_MS = 60_000

/** `session.resume`'s options, declared once: a misspelt key is refused with "did you mean". */
export const RESUME_OPTIONS = optionsContract<ResumeOptions>('session.resume', {
  signal: RUN_OPTION_CHECKS.signal,
  metadata: RUN_OPTION_CHECKS.metadata,
  runTimeoutMs: RUN_OPTION_CHECKS.runTimeoutMs,
  leaseMs: option.duration(),
})
