import { isProviderError, ProviderError } from '../../model/provider-error.ts'

/**
 * The error an aborted signal stands for: its reason when that is already a `ProviderError` (a
 * deadline aborts with kind `timeout`), else a `ProviderError` of kind `aborted` carrying the reason.
 */
export function abortReason(signal: AbortSignal): ProviderError {
  const reason: unknown = signal.reason
  if (isProviderError(reason)) return reason
  return new ProviderError('the run was aborted', { kind: 'aborted', cause: reason })
}
