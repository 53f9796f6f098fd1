import { assertArray, assertObject } from '../../model/argument-checks.ts'
import type { LanguageModelV3FunctionTool, LanguageModelV3ReasoningPart, LanguageModelV3ToolChoice } from '@ai-sdk/provider'
import type { Message } from '../../model/message.ts'
import type { ReasoningBlock } from '../../model/reasoning.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ToolChoice } from '../../model/tool-choice.ts'
import { objectToolInput } from '../adapter-kit/object-tool-input.ts'
import type { AiSdkCallOptions, AiSdkMessage } from './ai-sdk-shapes.ts'
import { errorResultText } from '../adapter-kit/error-result-text.ts'
import { wellFormedJson, wellFormedText } from '../adapter-kit/well-formed.ts'
import { WireToolIds } from '../adapter-kit/wire-tool-ids.ts'

/** Converts provider-neutral messages to an AI SDK prompt; gate-only fields are left behind, tool call ids go unique and of the characters every provider API takes (see `WireToolIds`). */
export function toAiSdkPrompt(system: string | undefined, messages: readonly Message[]): AiSdkMessage[] {
  const prompt: AiSdkMessage[] = []
  if (system !== undefined && system !== '') prompt.push({ role: 'system', content: wellFormedText(system) })
  const ids = new WireToolIds()
  for (const m of messages) prompt.push(aiSdkMessage(m, ids))
  return prompt
}

/**
 * One message as an AI SDK prompt message. Blank assistant text, an error result without content and
 * lone surrogates, which Anthropic's API refuses on every later request, are left out, said, and
 * written U+FFFD (any provider takes the result). An assistant message starts with its reasoning parts
 * (provider metadata passed back as provider options, so an Anthropic model gets its signed
 * thinking blocks back); tool arguments are sent as an object, or as sent under `_raw_arguments`.
 * Tool call ids go as the message holds them (`toAiSdkPrompt` makes those of a whole conversation
 * unique, of the characters every provider API takes).
 */
export function toAiSdkMessage(m: Message): AiSdkMessage {
  return aiSdkMessage(m, undefined)
}

/** {@link toAiSdkMessage}, its tool call ids written by `ids` (those of its conversation, see `WireToolIds`) when given. */
function aiSdkMessage(m: Message, ids: WireToolIds | undefined): AiSdkMessage {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: wellFormedText(m.content) }
    case 'user':
      return { role: 'user', content: [{ type: 'text', text: wellFormedText(m.content) }] }
    case 'tool':
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: ids === undefined ? (m.toolCallId ?? '') : ids.answer(m.toolCallId ?? ''),
            toolName: m.toolName ?? '',
            output: m.isError === true ? { type: 'error-text', value: errorResultText(m.content) } : { type: 'text', value: wellFormedText(m.content) },
          },
        ],
      }
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(m.reasoning ?? []).map(toReasoningPart),
          ...(m.content.trim() !== '' ? [{ type: 'text' as const, text: wellFormedText(m.content) }] : []),
          ...(m.toolCalls ?? []).map((c) => ({
            type: 'tool-call' as const,
            toolCallId: ids === undefined ? c.id : ids.use(c.id),
            toolName: c.name,
            input: wellFormedJson(objectToolInput(c.args)),
          })),
        ],
      }
  }
}

function toReasoningPart(r: ReasoningBlock): LanguageModelV3ReasoningPart {
  const anthropic = r.redactedData !== undefined ? { redactedData: r.redactedData } : r.signature !== undefined ? { signature: r.signature } : undefined
  const options = r.providerMetadata ?? (anthropic !== undefined ? { anthropic } : undefined)
  return {
    type: 'reasoning',
    text: r.text,
    ...(options !== undefined ? { providerOptions: options as NonNullable<LanguageModelV3ReasoningPart['providerOptions']> } : {}),
  }
}

/**
 * Builds AI SDK call options for a request. Their prompt holds only the parts specifications v3 and
 * v4 share (text, reasoning, tool calls and text tool results), so a model of either takes them.
 * `toolChoice` is sent only with tools.
 */
export function toAiSdkCallOptions(request: ModelRequest, structuredOutput: boolean): AiSdkCallOptions {
  assertObject(request, 'toAiSdkCallOptions: request', 'a model request { messages, system?, tools?, ... }')
  assertArray(request.messages, 'toAiSdkCallOptions: request.messages', 'an array of messages')
  const tools: LanguageModelV3FunctionTool[] | undefined = request.tools?.map((t) => ({
    type: 'function',
    name: wellFormedText(t.name),
    ...(t.description !== undefined ? { description: wellFormedText(t.description) } : {}),
    inputSchema: { ...(wellFormedJson(t.inputSchema) as Readonly<Record<string, unknown>>) },
  }))
  return {
    prompt: toAiSdkPrompt(request.system, request.messages),
    ...(tools !== undefined && tools.length > 0
      ? { tools, ...(request.toolChoice !== undefined ? { toolChoice: toAiSdkToolChoice(request.toolChoice) } : {}) }
      : {}),
    ...(request.maxTokens !== undefined ? { maxOutputTokens: request.maxTokens } : {}),
    ...aiSdkResponseFormat(request, structuredOutput),
    ...(request.signal !== undefined ? { abortSignal: request.signal } : {}),
  }
}

/**
 * The `responseFormat` of a request: by its `outputMode` when a gate settled one (`native`: JSON
 * with the native schema; `json`: JSON without a schema, the schema being in the system prompt;
 * `prompt`: none), else JSON with `responseSchema` when `structuredOutput` is on.
 */
export function aiSdkResponseFormat(request: ModelRequest, structuredOutput: boolean): Pick<AiSdkCallOptions, 'responseFormat'> {
  switch (request.outputMode) {
    case 'native': {
      const schema = request.nativeSchema ?? request.responseSchema
      return schema === undefined ? {} : { responseFormat: { type: 'json', schema: { ...schema } } }
    }
    case 'json':
      return { responseFormat: { type: 'json' } }
    case 'prompt':
      return {}
    default:
      return request.responseSchema !== undefined && structuredOutput ? { responseFormat: { type: 'json', schema: { ...request.responseSchema } } } : {}
  }
}

/** A request's `toolChoice` as the AI SDK's (specifications v3 and v4 share it). */
export function toAiSdkToolChoice(choice: ToolChoice): LanguageModelV3ToolChoice {
  return typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.tool }
}
