import { guardReport } from '../../agent/guard-report.ts'
import { withheldNotice } from '../../agent/guard-tool-result.ts'
import type { EventHub } from '../../events/event-hub.ts'
import { type ContentGuard, type GuardSurface, runContentGuards } from '../../validation/guards/index.ts'
import { guardCutShort, guardStop } from '../../agent/guard-stop.ts'

/** The host run a text is screened for, and the guards that screen it. */
export interface HostGuardRun {
  readonly guards: readonly ContentGuard[]
  readonly events: EventHub
  readonly runId: string
  readonly signal: AbortSignal | undefined
  readonly host: 'ai-sdk' | 'langchain'
  /** True once the call's own deadline (`runTimeoutMs`) fired: guards it cut short end the call `run-timeout`. */
  readonly late?: (() => boolean) | undefined
}

/**
 * One text of a host's call through the run's guards of `surface`, the one mapping every host reads: the
 * text as allowed or redacted; a tool result a guard blocks (or answers with feedback) becomes the
 * withheld notice; any other block, and every escalation, throws the typed stop (`guard-blocked`,
 * `guard-escalated`) before the model is called; guards cut short by the host's abort end the call
 * `aborted`, by the call's `runTimeoutMs` `run-timeout`.
 */
export async function hostScreen(surface: GuardSurface, text: string, tool: string | undefined, run: HostGuardRun): Promise<string> {
  const outcome = await runContentGuards(run.guards, {
    surface,
    text,
    tool: tool === undefined ? undefined : { name: tool },
    signal: run.signal,
    report: guardReport({ events: run.events, runId: run.runId, host: run.host }),
  })
  // The host's abort or the call's deadline cut the guards short: the call ends as that says, not as a guard's
  // fail-closed block (nor a withheld result).
  if (run.signal?.aborted === true) throw guardCutShort(surface, run.runId, run.late?.() === true)
  if (outcome.action === 'allow') return text
  if (outcome.action === 'redact') return outcome.text
  if (surface === 'tool-result' && outcome.action !== 'escalate') return withheldNotice(tool ?? 'tool', outcome.guard, outcome.reason)
  throw guardStop(outcome, surface, run.runId)
}
