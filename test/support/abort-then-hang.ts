import type { ScriptedStepFunction } from '../../src/providers/index.ts'

/** A scripted step that aborts the run through `controller`, then never answers, as a provider that ignores the signal. */
export const abortThenHang =
  (controller: AbortController): ScriptedStepFunction =>
  () => {
    controller.abort()
    return new Promise<never>(() => {})
  }
