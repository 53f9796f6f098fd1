import type { ModelResponse } from '../../model/response.ts'
import { FailFastKinds } from '../../model/fail-fast-kind.ts'
import { runContentGuards } from '../../validation/guards/index.ts'
import { checkResponse } from '../check-response.ts'
import type { FallbackVerdict } from '../run-fallback.ts'
import type { RunView } from '../run/run-view.ts'
import { gateGuardReport } from './gate-guard-report.ts'

/**
 * The fallback's accepted answer through the gate's `output` guards, as a model's answer goes:
 * a redaction replaces its text and must pass the output schema again (else `fallback-invalid`);
 * a block or an escalation fails with `guard-blocked` / `guard-escalated`; a re-ask cannot be
 * asked of a fallback, so it blocks. Nothing a guard stopped is returned.
 */
export async function guardFallback<T>(
  run: RunView<T>,
  verdict: FallbackVerdict<T> & { readonly ok: true },
): Promise<FallbackVerdict<T> | GuardedFallbackStop> {
  const guards = run.g.outputGuards
  if (guards.length === 0 || verdict.response.content === '') return verdict
  const report = gateGuardReport(run.g.events, run.runId, run.tags)
  const outcome = await runContentGuards(guards, { surface: 'output', text: verdict.response.content, signal: run.signal, report })
  switch (outcome.action) {
    case 'allow':
      return verdict
    case 'redact': {
      const response: ModelResponse = { ...verdict.response, content: outcome.text }
      const check = await checkResponse(response, run.settings.schema, run.g.repair)
      if (check.kind === 'ok') return { ok: true, response, value: check.value }
      const why = check.failure?.message ?? check.kind
      return {
        ok: false,
        kind: 'fallback-invalid',
        reason: `the fallback's answer failed validation once content guard '${outcome.guards.join(', ')}' redacted it: ${why}`,
      }
    }
    case 'escalate':
      return {
        ok: false,
        kind: FailFastKinds.GuardEscalated,
        reason: `content guard '${outcome.guard}' (output) escalated the fallback's answer for a human: ${outcome.reason}`,
      }
    default:
      return {
        ok: false,
        kind: FailFastKinds.GuardBlocked,
        reason: `content guard '${outcome.guard}' (output) ${outcome.action === 'block' ? 'blocked' : 'asked to re-ask, which a fallback cannot be,'} the fallback's answer: ${outcome.reason}`,
      }
  }
}

/** A fallback answer a content guard stopped. */
export interface GuardedFallbackStop {
  readonly ok: false
  readonly kind: typeof FailFastKinds.GuardBlocked | typeof FailFastKinds.GuardEscalated
  readonly reason: string
}
