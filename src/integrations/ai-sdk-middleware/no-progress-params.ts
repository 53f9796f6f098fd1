import type { LanguageModelV4CallOptions } from '@ai-sdk/provider'
import type { EventHub } from '../../events/event-hub.ts'
import { hostVerdict, withheldTools } from '../../agent/no-progress/host-ladder.ts'
import type { NoProgressSettings } from '../../agent/no-progress/no-progress-options.ts'
import { promptToMessages } from './prompt-to-messages.ts'

/**
 * The call's params on the no-progress ladder, read from its own prompt (the steps of
 * `generateText`/`streamText` since the last user message): unchanged while the run makes progress;
 * with the nudge appended on a nudge (the AI SDK never keeps what a middleware sends, so it stays
 * ephemeral); without the looping tools (or with `toolChoice: 'none'`) on the forced change; a stop
 * throws the `no-progress` failure before the model is called.
 */
export function noProgressParams(
  params: LanguageModelV4CallOptions,
  settings: NoProgressSettings | undefined,
  events: EventHub,
  runId: string,
): LanguageModelV4CallOptions {
  if (settings === undefined) return params
  const verdict = hostVerdict(settings, promptToMessages(params.prompt).messages, { events, runId, host: 'ai-sdk' })
  if (verdict === undefined) return params
  const shaped: LanguageModelV4CallOptions = { ...params, prompt: [...params.prompt, { role: 'user', content: [{ type: 'text', text: verdict.message }] }] }
  if (verdict.forced === undefined) return shaped
  const withhold = withheldTools(verdict)
  const kept = (params.tools ?? []).filter((t) => !withhold.includes(t.name))
  if (kept.length === 0 || kept.length === (params.tools ?? []).length) return { ...shaped, toolChoice: { type: 'none' } }
  // A call that pins a withheld tool asks for one of the others: naming a tool it no longer offers is a request no provider takes.
  const choice = params.toolChoice
  const pinned = choice?.type === 'tool' && withhold.includes(choice.toolName)
  return { ...shaped, tools: kept, ...(pinned ? { toolChoice: { type: 'required' } } : {}) }
}
