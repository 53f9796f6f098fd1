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
 * an escalation throws `guard-escalated`. A LangGraph `Command` that updates the state's messages
 * (how a tool that changes the state answers) has each of its `ToolMessage`s screened the same
 * way; anything else a tool returned passes as it is.
 */
export async function guardToolMessage(result: unknown, tool: string, guards: readonly ContentGuard[], run: MessageGuardRun): Promise<unknown> {
  if (commandUpdate(result) !== undefined) return guardedCommand(result as object, tool, guards, run)
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

/** The state update of a LangGraph `Command` whose update holds a list of messages, else undefined. */
function commandUpdate(result: unknown): (Record<string, unknown> & { readonly messages: readonly unknown[] }) | undefined {
  try {
    if (typeof result !== 'object' || result === null || (result as { lg_name?: unknown }).lg_name !== 'Command') return undefined
    const update = (result as { update?: unknown }).update
    if (typeof update !== 'object' || update === null || !Array.isArray((update as { messages?: unknown }).messages)) return undefined
    return update as Record<string, unknown> & { readonly messages: readonly unknown[] }
  } catch {
    // A result whose fields throw when read is no Command of LangGraph's: it passes as LangChain hands it on.
    return undefined
  }
}

/**
 * The `Command` with each `ToolMessage` of its update screened; the same `Command` when no guard
 * changed one, else a copy of it (its class, `goto`, `graph` and the rest of the update kept).
 */
async function guardedCommand(command: object, tool: string, guards: readonly ContentGuard[], run: MessageGuardRun): Promise<unknown> {
  const update = commandUpdate(command) as NonNullable<ReturnType<typeof commandUpdate>>
  const messages: unknown[] = []
  for (const m of update.messages) messages.push(ToolMessage.isInstance(m) ? await guardToolMessage(m, tool, guards, run) : m)
  if (messages.every((m, i) => m === update.messages[i])) return command
  const next = { ...update, messages }
  const copy = Object.assign(Object.create(Object.getPrototypeOf(command) as object | null) as Record<PropertyKey, unknown>, command, { update: next })
  // LangGraph also keeps the Command's arguments under a symbol of its own: they get the screened update too.
  for (const key of Object.getOwnPropertySymbols(copy)) {
    const held = copy[key]
    if (typeof held === 'object' && held !== null && (held as { update?: unknown }).update === update) copy[key] = { ...held, update: next }
  }
  return copy
}
