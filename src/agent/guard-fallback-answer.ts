import type { ReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import { FailFastKinds } from '../model/fail-fast-kind.ts'
import { callUser } from '../model/user-code.ts'
import { validateFinalAnswer } from '../validation/index.ts'
import { runContentGuards } from '../validation/guards/index.ts'
import type { AgentRuntime } from './agent-runtime.ts'
import { guardReport } from './guard-report.ts'
import { applyOutputFallback, type FallbackOutcome, type ResolvedOutputFallback } from './output-fallback.ts'
import type { RunIdentity } from './run-events.ts'

/** The run an output fallback answers for. */
export interface FallbackRun {
  readonly who: RunIdentity
  readonly signal: AbortSignal | undefined
  /** The run's fail-fast error of `kind` (an abort, a guard's block or escalation). */
  readonly fail: (kind: string, reason: string) => Error
}

/**
 * The output fallback's answer (tier 2, else the canned one) for the gate's `error`, through the
 * agent's `output` guards before it is returned or committed, as a model's answer goes: a
 * redaction replaces the text and is validated against the output schema again (failing it, the
 * gate's error stands); a block or an escalation ends the run `guard-blocked` / `guard-escalated`
 * (a re-ask cannot be asked of a fallback, so it blocks). No answer, or an aborted run, throws.
 */
export async function fallbackAnswer<T>(
  rt: AgentRuntime<T>,
  fallback: ResolvedOutputFallback<T>,
  error: ReliabilityFailFastError,
  run: FallbackRun,
): Promise<FallbackOutcome<T>> {
  const answer = await applyOutputFallback(fallback, error, { schema: rt.outputSchema, events: rt.events, runId: run.who.runId, signal: run.signal })
  if (run.signal?.aborted === true) throw run.fail(FailFastKinds.Aborted, 'the run was aborted while its output fallback was answering')
  if (answer === undefined) throw error
  if (answer.text === '' || !rt.contentGuards.some((g) => g.surfaces.includes('output'))) return answer
  const report = guardReport({ events: rt.events, runId: run.who.runId, tags: run.who.tags, host: 'agent' })
  const outcome = await runContentGuards(rt.contentGuards, { surface: 'output', text: answer.text, signal: run.signal, report })
  switch (outcome.action) {
    case 'allow':
      return answer
    case 'redact': {
      const schema = rt.outputSchema
      if (schema === undefined) return { ...answer, text: outcome.text, value: outcome.text as unknown as T }
      const checked = await callUser(() => validateFinalAnswer(outcome.text, schema), run.signal)
      if (!checked.ok || !checked.value.ok) throw error
      return { ...answer, text: outcome.text, value: checked.value.value as T }
    }
    case 'escalate':
      throw run.fail(
        FailFastKinds.GuardEscalated,
        `content guard '${outcome.guard}' (output) escalated the output fallback's answer for a human: ${outcome.reason}`,
      )
    default:
      throw run.fail(
        FailFastKinds.GuardBlocked,
        `content guard '${outcome.guard}' (output) ${outcome.action === 'block' ? 'blocked' : 'asked to re-ask, which a fallback cannot be,'} the output fallback's answer: ${outcome.reason}`,
      )
  }
}
