import { type BaseMessage, HumanMessage } from '@langchain/core/messages'
import { hostVerdict, withheldTools } from '../../agent/no-progress/host-ladder.ts'
import type { NoProgressSettings } from '../../agent/no-progress/no-progress-options.ts'
import type { EventHub } from '../../events/event-hub.ts'
import type { Message } from '../../model/message.ts'

/** What the ladder reads and changes of LangChain's model request (the rest goes to the handler as it came). */
interface LadderRequest {
  readonly messages: BaseMessage[]
  readonly tools: readonly unknown[]
  readonly toolChoice?: unknown
}

/**
 * A LangChain model request on the no-progress ladder, read from the agent's messages (`messages`,
 * the request's own, since the last user message): unchanged while the run makes progress; the nudge
 * appended to this call's messages only (the agent's state keeps only the answer the middleware
 * returns, so the nudge stays ephemeral); the looping tools left out, or `toolChoice: 'none'`, on the
 * forced change; a stop throws the `no-progress` failure before the model is called.
 */
export function noProgressRequest<R extends LadderRequest>(
  request: R,
  messages: readonly Message[],
  settings: NoProgressSettings | undefined,
  report: { readonly events: EventHub; readonly runId: string },
): R {
  const verdict = hostVerdict(settings, messages, { ...report, host: 'langchain' })
  if (verdict === undefined) return request
  const shaped: R = { ...request, messages: [...request.messages, new HumanMessage(verdict.message)] }
  if (verdict.forced === undefined) return shaped
  const withhold = withheldTools(verdict)
  const kept = request.tools.filter((t) => !withhold.includes(String((t as { name?: unknown } | null)?.name)))
  if (kept.length === 0 || kept.length === request.tools.length) return { ...shaped, toolChoice: 'none' }
  // A request that pins a withheld tool asks for one of the others: naming a tool it no longer offers is a request no model takes.
  const pinned = withhold.includes(pinnedTool(request.toolChoice) ?? '')
  return { ...shaped, tools: kept, ...(pinned ? { toolChoice: 'required' } : {}) }
}

/** The tool a LangChain `toolChoice` pins: a tool's name, or `{ type: 'function', function: { name } }`; undefined for `auto`, `none`, `required`, `any`. */
function pinnedTool(choice: unknown): string | undefined {
  if (typeof choice === 'string') return ['auto', 'none', 'required', 'any'].includes(choice) ? undefined : choice
  if (typeof choice !== 'object' || choice === null) return undefined
  const name = (choice as { function?: { name?: unknown } }).function?.name
  return typeof name === 'string' ? name : undefined
}
