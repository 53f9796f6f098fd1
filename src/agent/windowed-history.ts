import { ReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import { FailFastKinds } from '../model/fail-fast-kind.ts'
import type { Message } from '../model/message.ts'
import { messageOf as errorMessageOf } from '../model/message-of.ts'
import { ZERO_USAGE } from '../model/usage.ts'
import { type SessionWindow, windowHistory } from '../sessions/session-window.ts'

/**
 * The part of `history` a run's request carries under `window`; a window whose `estimateTokens`
 * fails ends the run before anything is sent, with kind `window-failed` (a `WindowEstimateError`
 * as the cause, itself caused by what the estimator threw), never with the estimator's own error or a history read as 0 tokens.
 */
export function windowed(history: readonly Message[], window: SessionWindow | undefined, runId: string | undefined): readonly Message[] {
  try {
    return windowHistory(history, window)
  } catch (cause) {
    throw new ReliabilityFailFastError({
      kind: FailFastKinds.WindowFailed,
      reason: errorMessageOf(cause),
      phase: 'pre-check',
      ...(runId !== undefined ? { runId } : {}),
      attempts: [],
      usage: ZERO_USAGE,
      costUsd: 0,
      cause,
    })
  }
}
