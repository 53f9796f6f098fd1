import type { LanguageModelV4CallOptions, LanguageModelV4ToolChoice } from '@ai-sdk/provider'
import type { ModelRequest } from '../../model/request.ts'
import type { ToolChoice } from '../../model/tool-choice.ts'
import type { ToolSpec } from '../../model/tool-call.ts'
import { schemaInstruction } from '../../model/schema-instruction.ts'
import { aiSdkResponseFormat, toAiSdkMessage, toAiSdkToolChoice } from '../../providers/ai-sdk/to-ai-sdk-prompt.ts'
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
 * The call's params with the gate's ephemeral tail appended to the original prompt, the request's
 * `toolChoice` (the caller's, or the tool a forced re-ask pins) over the call's, and the output mode
 * the gate settled on (see {@link withOutputMode}).
 */
export function withTail(params: LanguageModelV4CallOptions, request: ModelRequest): LanguageModelV4CallOptions {
  const tail = request.messages.filter((m) => m.ephemeral === true).map(toAiSdkMessage)
  const sent: LanguageModelV4CallOptions = {
    ...params,
    prompt: tail.length === 0 ? params.prompt : [...params.prompt, ...tail],
    ...(request.toolChoice !== undefined ? { toolChoice: toAiSdkToolChoice(request.toolChoice) } : {}),
    ...(request.signal !== undefined ? { abortSignal: request.signal } : {}),
  }
  return request.outputMode === undefined || request.outputMode === 'auto' ? sent : withOutputMode(sent, request)
}

/**
 * The call in the output mode of `request`: `responseFormat` as the AI SDK provider adapter sends
 * it (`native`: JSON with the schema compiled for the model's provider; `json`: JSON without a
 * schema; `prompt`: none), and for `json` and `prompt` the schema instruction as a system message
 * after the prompt's leading system messages (the call's prompt is sent, not the request's system).
 */
function withOutputMode(params: LanguageModelV4CallOptions, request: ModelRequest): LanguageModelV4CallOptions {
  const { responseFormat: _replaced, ...rest } = params
  const format = aiSdkResponseFormat(request, true).responseFormat as LanguageModelV4CallOptions['responseFormat']
  const schema = request.responseSchema
  if (request.outputMode === 'native' || schema === undefined) return format === undefined ? rest : { ...rest, responseFormat: format }
  const prompt = [...params.prompt]
  let at = 0
  while (at < prompt.length && prompt[at]?.role === 'system') at++
  prompt.splice(at, 0, { role: 'system', content: schemaInstruction(schema) })
  return format === undefined ? { ...rest, prompt } : { ...rest, prompt, responseFormat: format }
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
