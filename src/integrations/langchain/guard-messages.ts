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
    if (!HumanMessage.isInstance(m)) {
      out.push(m)
      continue
    }
    const content = await screenedContent(m.content, screened)
    out.push(content === m.content ? m : new HumanMessage({ content, ...(m.id !== undefined ? { id: m.id } : {}) }))
  }
  return out
}

type HumanContent = HumanMessage['content']

/**
 * A human message's content through the `input` guards: its text, or each text block of a list of
 * content blocks (the other blocks, an image, pass as they are). The same content when no guard changed it.
 */
async function screenedContent(content: HumanContent, run: HostGuardRun): Promise<HumanContent> {
  if (typeof content === 'string') return hostScreen('input', content, undefined, run)
  if (!Array.isArray(content)) return content
  let changed = false
  const blocks: unknown[] = []
  for (const block of content as readonly unknown[]) {
    const text = textOf(block)
    const after = text === undefined ? text : await hostScreen('input', text, undefined, run)
    if (after === text) blocks.push(block)
    else {
      changed = true
      blocks.push({ ...(block as object), text: after })
    }
  }
  return changed ? (blocks as HumanContent) : content
}

/** The text of a `{ type: 'text', text }` content block, else undefined. */
function textOf(block: unknown): string | undefined {
  if (typeof block !== 'object' || block === null) return undefined
  const { type, text } = block as { type?: unknown; text?: unknown }
  return type === 'text' && typeof text === 'string' ? text : undefined
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
