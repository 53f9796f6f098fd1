import type { LanguageModelV4CallOptions, LanguageModelV4FunctionTool, LanguageModelV4Message, LanguageModelV4Prompt } from '@ai-sdk/provider'
import type { Message } from '../../model/message.ts'
import type { ModelRequest } from '../../model/request.ts'

/** Converts provider-neutral messages to an AI SDK prompt; gate-only fields are left behind. */
export function toAiSdkPrompt(system: string | undefined, messages: readonly Message[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = []
  if (system !== undefined && system !== '') prompt.push({ role: 'system', content: system })
  for (const m of messages) prompt.push(toAiSdkMessage(m))
  return prompt
}

/** One message as an AI SDK prompt message. */
export function toAiSdkMessage(m: Message): LanguageModelV4Message {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.content }
    case 'user':
      return { role: 'user', content: [{ type: 'text', text: m.content }] }
    case 'tool':
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: m.toolCallId ?? '',
            toolName: m.toolName ?? '',
            output: m.isError === true ? { type: 'error-text', value: m.content } : { type: 'text', value: m.content },
          },
        ],
      }
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(m.content !== '' ? [{ type: 'text' as const, text: m.content }] : []),
          ...(m.toolCalls ?? []).map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: c.args })),
        ],
      }
  }
}

/** Builds AI SDK call options for a request. */
export function toAiSdkCallOptions(request: ModelRequest, structuredOutput: boolean): LanguageModelV4CallOptions {
  const tools: LanguageModelV4FunctionTool[] | undefined = request.tools?.map((t) => ({
    type: 'function',
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    inputSchema: { ...t.inputSchema },
  }))
  return {
    prompt: toAiSdkPrompt(request.system, request.messages),
    ...(tools !== undefined && tools.length > 0 ? { tools } : {}),
    ...(request.maxTokens !== undefined ? { maxOutputTokens: request.maxTokens } : {}),
    ...(request.responseSchema !== undefined && structuredOutput ? { responseFormat: { type: 'json', schema: { ...request.responseSchema } } } : {}),
    ...(request.signal !== undefined ? { abortSignal: request.signal } : {}),
  }
}
