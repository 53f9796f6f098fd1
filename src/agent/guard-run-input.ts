import type { Message } from '../model/message.ts'
import type { ToolCall } from '../model/tool-call.ts'
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
  // A tool call's arguments are text the model reads again: screened as their JSON text, a redaction parsed back (kept as text when it is no JSON).
  const screenArgs = async (call: ToolCall): Promise<ToolCall> => {
    const text = typeof call.args === 'string' ? call.args : jsonText(call.args)
    if (text === undefined) return call
    const after = (await screen('history', { role: 'assistant', content: text })).content
    if (after === text) return call
    return { ...call, args: typeof call.args === 'string' ? after : parsedOr(after) }
  }
  const history: Message[] = []
  let changed = false
  for (const m of input.history) {
    let screened = await screen('history', m)
    if (m.toolCalls !== undefined && m.toolCalls.length > 0) {
      const calls: ToolCall[] = []
      for (const call of m.toolCalls) calls.push(await screenArgs(call))
      if (calls.some((c, i) => c !== m.toolCalls?.[i])) screened = { ...screened, toolCalls: Object.freeze(calls) }
    }
    changed ||= screened !== m
    history.push(screened)
  }
  return { history: changed ? Object.freeze(history) : input.history, user: await screen('input', input.user) }
}

/** `text` as JSON when it parses, else the text itself. */
function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/** The JSON text of arguments, undefined when JSON cannot write them (no text a model could read either). */
function jsonText(args: unknown): string | undefined {
  try {
    return JSON.stringify(args)
  } catch {
    return undefined
  }
}
