import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider'
import type { EventHub } from '../../events/event-hub.ts'
import type { ContentGuard } from '../../validation/guards/index.ts'
import { type HostGuardRun, hostScreen } from '../host/host-screen.ts'

type Message = LanguageModelV4Prompt[number]
type ToolMessage = Extract<Message, { role: 'tool' }>
type ToolPart = ToolMessage['content'][number]
type ResultPart = Extract<ToolPart, { type: 'tool-result' }>

/** The run a prompt is guarded for. */
export interface PromptGuardRun {
  readonly events: EventHub
  readonly runId: string
  readonly signal: AbortSignal | undefined
  /** True once the call's `runTimeoutMs` fired (guards it cut short end the call `run-timeout`). */
  readonly late?: (() => boolean) | undefined
}

/**
 * The call's params with its prompt through the content guards before the model sees it: each
 * user text part as `input`, each tool result as `tool-result` (a redaction replaces it, a block
 * withholds it behind a notice). A block or an escalation of the input, or an escalated tool
 * result, throws the typed stop (`guard-blocked`, `guard-escalated`) before the model is called.
 */
export async function guardPrompt(
  params: LanguageModelV4CallOptions,
  guards: readonly ContentGuard[],
  run: PromptGuardRun,
): Promise<LanguageModelV4CallOptions> {
  if (guards.length === 0) return params
  const screened: HostGuardRun = { ...run, guards, host: 'ai-sdk' }
  const prompt: Message[] = []
  for (const m of params.prompt) {
    if (m.role === 'user') {
      const content = []
      for (const p of m.content) content.push(p.type === 'text' ? { ...p, text: await hostScreen('input', p.text, undefined, screened) } : p)
      prompt.push({ ...m, content })
    } else if (m.role === 'tool') {
      const content: ToolPart[] = []
      for (const p of m.content) content.push(p.type === 'tool-result' ? await screenedResult(p, screened) : p)
      prompt.push({ ...m, content })
    } else {
      prompt.push(m)
    }
  }
  return { ...params, prompt }
}

async function screenedResult(part: ResultPart, run: HostGuardRun): Promise<ResultPart> {
  const output = part.output
  if (output.type === 'content') {
    const value = []
    for (const item of output.value) value.push(item.type === 'text' ? { ...item, text: await hostScreen('tool-result', item.text, part.toolName, run) } : item)
    return { ...part, output: { ...output, value } }
  }
  if (!('value' in output)) return part
  const text = typeof output.value === 'string' ? output.value : (JSON.stringify(output.value) ?? '')
  const after = await hostScreen('tool-result', text, part.toolName, run)
  if (after === text) return part
  const isError = output.type === 'error-text' || output.type === 'error-json'
  return { ...part, output: { type: isError ? 'error-text' : 'text', value: after } }
}
