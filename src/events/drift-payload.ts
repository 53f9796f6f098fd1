/**
 * The payload of `drift`: a drift monitor's rolling signal crossed its threshold for a provider and
 * model (`state` `above`), or came back under it (`below`). `runId` is the run whose end moved the signal.
 */
export interface DriftPayload {
  readonly runId: string
  readonly signal: 'validation_failure_rate' | 'mean_attempts'
  readonly provider: string
  readonly model: string | undefined
  readonly value: number
  readonly threshold: number
  readonly state: 'above' | 'below'
  /** Runs in the window the value was computed over. */
  readonly runs: number
}
