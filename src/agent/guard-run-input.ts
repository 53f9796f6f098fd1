import type { Message } from '../model/message.ts'
import { type GuardSurface, runContentGuards } from '../validation/guards/index.ts'
import type { AgentRuntime } from './agent-runtime.ts'
import { guardReport } from './guard-report.ts'
import { guardCutShort, guardStop } from './guard-stop.ts'

/** A run's history and user message, as the content guards leave them. */
export interface GuardedInput {
  readonly history: readonly Message[]
  readonly user: Message
}

/**
 * The user's message through the `input` guards and each message of the loaded history through
 * the `history` guards, before the first model call: a redaction replaces the text (so the
 * exchange committed to a session holds the redacted input, never the original); a block or an
 * escalation throws `guard-blocked` / `guard-escalated` before anything is sent or stored; guards
 * cut short by the run's deadline or abort end it `run-timeout` / `aborted`.
 */
export async function guardRunInput(
  rt: AgentRuntime<unknown>,
  input: GuardedInput,
  run: { readonly runId: string; readonly signal: AbortSignal | undefined; readonly late?: () => boolean },
): Promise<GuardedInput> {
  const report = guardReport({ events: rt.events, runId: run.runId, host: 'agent' })
  const screen = async (surface: GuardSurface, message: Message): Promise<Message> => {
    const outcome = await runContentGuards(rt.contentGuards, { surface, text: message.content, signal: run.signal, report })
    // The run's deadline or abort cut the guards short: the run ends as that says, not as a guard's block.
    if (run.signal?.aborted === true) throw guardCutShort(surface, run.runId, run.late?.() === true)
    if (outcome.action === 'allow') return message
    if (outcome.action === 'redact') return { ...message, content: outcome.text }
    throw guardStop(outcome, surface, run.runId)
  }
  const history: Message[] = []
  let changed = false
  for (const m of input.history) {
    const screened = await screen('history', m)
    changed ||= screened !== m
    history.push(screened)
  }
  return { history: changed ? Object.freeze(history) : input.history, user: await screen('input', input.user) }
}
