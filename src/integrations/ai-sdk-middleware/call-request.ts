import type { LanguageModelV4CallOptions, LanguageModelV4ToolChoice } from '@ai-sdk/provider'
import type { ModelRequest } from '../../model/request.ts'
import type { ToolChoice } from '../../model/tool-choice.ts'
import type { ToolSpec } from '../../model/tool-call.ts'
import { toAiSdkMessage, toAiSdkToolChoice } from '../../providers/ai-sdk/to-ai-sdk-prompt.ts'
import { promptToMessages } from './prompt-to-messages.ts'

/**
 * The gate's request for one middleware call: a text view of the prompt, the call's tools (for the
 * gate's checks and budget estimates; provider tools with an empty schema) and its `toolChoice`.
 * The wire keeps the call's own params ({@link withTail}).
 */
export function callRequest(params: LanguageModelV4CallOptions): ModelRequest {
  const { system, messages } = promptToMessages(params.prompt)
  const tools: ToolSpec[] = (params.tools ?? []).map((t) =>
    t.type === 'function'
      ? { name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), inputSchema: { ...t.inputSchema } }
      : { name: t.name, inputSchema: {} },
  )
  const toolChoice = params.toolChoice === undefined ? undefined : fromAiSdkToolChoice(params.toolChoice)
  return {
    ...(system !== undefined ? { system } : {}),
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice !== undefined && tools.length > 0 ? { toolChoice } : {}),
    ...(params.maxOutputTokens !== undefined ? { maxTokens: params.maxOutputTokens } : {}),
  }
}

/**
 * The call's params with the gate's ephemeral tail appended to the original prompt, and the
 * request's `toolChoice` (the caller's, or the tool a forced re-ask pins) over the call's.
 */
export function withTail(params: LanguageModelV4CallOptions, request: ModelRequest): LanguageModelV4CallOptions {
  const tail = request.messages.filter((m) => m.ephemeral === true).map(toAiSdkMessage)
  return {
    ...params,
    prompt: tail.length === 0 ? params.prompt : [...params.prompt, ...tail],
    ...(request.toolChoice !== undefined ? { toolChoice: toAiSdkToolChoice(request.toolChoice) } : {}),
    ...(request.signal !== undefined ? { abortSignal: request.signal } : {}),
  }
}

/** The AI SDK's tool choice as a request's; `undefined` for a shape neither specification has. */
function fromAiSdkToolChoice(choice: LanguageModelV4ToolChoice): ToolChoice | undefined {
  switch (choice.type) {
    case 'auto':
    case 'none':
    case 'required':
      return choice.type
    case 'tool':
      return { tool: choice.toolName }
    default:
      return undefined
  }
}
