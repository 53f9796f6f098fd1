import { type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import type { EventHub } from '../../events/event-hub.ts'
import type { ContentGuard } from '../../validation/guards/index.ts'
import { type HostGuardRun, hostScreen } from '../host/host-screen.ts'

/** The run a LangChain message is guarded for. */
export interface MessageGuardRun {
  readonly events: EventHub
  readonly runId: string
  readonly signal: AbortSignal | undefined
  /** True once the turn's `runTimeoutMs` fired (guards it cut short end the turn `run-timeout`). */
  readonly late?: (() => boolean) | undefined
}

/**
 * The request's messages with each human message's text through the `input` guards before the
 * model sees it (a redaction replaces it; a block or an escalation throws the typed stop,
 * `guard-blocked` / `guard-escalated`, before the model is called).
 */
export async function guardHumanMessages(messages: readonly BaseMessage[], guards: readonly ContentGuard[], run: MessageGuardRun): Promise<BaseMessage[]> {
  const out: BaseMessage[] = []
  const screened: HostGuardRun = { ...run, guards, host: 'langchain' }
  for (const m of messages) {
    if (!HumanMessage.isInstance(m) || typeof m.content !== 'string') {
      out.push(m)
      continue
    }
    const text = await hostScreen('input', m.content, undefined, screened)
    out.push(text === m.content ? m : new HumanMessage({ content: text, ...(m.id !== undefined ? { id: m.id } : {}) }))
  }
  return out
}

/**
 * A tool's `ToolMessage` through the `tool-result` guards before it enters the agent's state:
 * redacted, or withheld behind a notice (not an error: calling again would fetch the same text);
 * an escalation throws `guard-escalated`. Anything else a tool returned (a `Command`) passes as it is.
 */
export async function guardToolMessage(result: unknown, tool: string, guards: readonly ContentGuard[], run: MessageGuardRun): Promise<unknown> {
  if (!ToolMessage.isInstance(result)) return result
  const text = typeof result.content === 'string' ? result.content : JSON.stringify(result.content)
  const after = await hostScreen('tool-result', text, tool, { ...run, guards, host: 'langchain' })
  if (after === text) return result
  return new ToolMessage({
    content: after,
    tool_call_id: result.tool_call_id,
    ...(result.name !== undefined ? { name: result.name } : {}),
    ...(result.status !== undefined ? { status: result.status } : {}),
  })
}
