import { isProviderError, ProviderError } from './provider-error.ts'

/** Maps an aborted signal to the error a waiting operation rejects with. */
export type AbortReasonOf = (signal: AbortSignal) => unknown

/** The signal's own reason, or a standard `AbortError`: what `fetch` and the SDKs reject with. */
export function signalReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError')
}

/**
 * The error an aborted signal stands for: its reason when that is already a `ProviderError` (a
 * deadline aborts with kind `timeout`), else a `ProviderError` of kind `aborted` carrying the reason.
 */
export function abortReason(signal: AbortSignal): ProviderError {
  const reason: unknown = signal.reason
  if (isProviderError(reason)) return reason
  return new ProviderError('the run was aborted', { kind: 'aborted', cause: reason })
}
