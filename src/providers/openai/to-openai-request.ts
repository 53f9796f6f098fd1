import { checkRequest } from '../../model/request-problem.ts'
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions'
import type { Message } from '../../model/message.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ToolChoice } from '../../model/tool-choice.ts'
import { option, optionsContract } from '../../model/options-contract.ts'
import { WireToolIds } from '../adapter-kit/wire-tool-ids.ts'

/** How the request's `responseSchema` is sent: OpenAI structured outputs, strict or not, or not at all. */
export type OpenAIStructuredOutput = 'json_schema' | 'strict' | false

/** Settings of the body builder. */
export interface OpenAIRequestSettings {
  readonly model: string
  readonly structuredOutput: OpenAIStructuredOutput
  readonly schemaName: string
  readonly extraBody: Readonly<Record<string, unknown>> | undefined
}

/** The contract of {@link toOpenAIRequest}'s settings. */
const OPENAI_REQUEST_SETTINGS = optionsContract<OpenAIRequestSettings>('toOpenAIRequest', {
  model: option.nonEmptyString(),
  structuredOutput: option.oneOf('json_schema', 'strict', false),
  schemaName: option.nonEmptyString(),
  extraBody: option.object(),
})

/**
 * Builds a Chat Completions body (the answer's format per `request.outputMode`, see `responseFormat`). Every message is rebuilt field by field, so `ephemeral` and any
 * other gate-only field never reaches the wire. `toolChoice` is sent as `tool_choice`, only with tools.
 * The settings go through their contract (a misspelt key is refused).
 */
export function toOpenAIRequest(request: ModelRequest, settings: OpenAIRequestSettings): ChatCompletionCreateParamsNonStreaming {
  // Checked as gate.run checks it: a value that is no request is a TypeError naming the builder, never one from inside it.
  const problem = checkRequest(request)
  if (typeof problem === 'string') throw new TypeError(`toOpenAIRequest: ${problem}`)
  return openAIBody(request, OPENAI_REQUEST_SETTINGS.check(settings))
}

/** {@link toOpenAIRequest} on settings the provider built itself (checked once, when it was made). */
export function openAIBody(request: ModelRequest, settings: OpenAIRequestSettings): ChatCompletionCreateParamsNonStreaming {
  const messages: ChatCompletionMessageParam[] = []
  if (request.system !== undefined && request.system !== '') messages.push({ role: 'system', content: request.system })
  const ids = new WireToolIds()
  for (const m of request.messages) messages.push(toWireMessage(m, ids))
  const tools: ChatCompletionTool[] | undefined = request.tools?.map((t) => ({
    type: 'function',
    function: { name: t.name, ...(t.description !== undefined ? { description: t.description } : {}), parameters: { ...t.inputSchema } },
  }))
  return {
    ...settings.extraBody,
    model: settings.model,
    messages,
    ...(tools !== undefined && tools.length > 0
      ? { tools, ...(request.toolChoice !== undefined ? { tool_choice: toWireToolChoice(request.toolChoice) } : {}) }
      : {}),
    ...(request.maxTokens !== undefined ? { max_completion_tokens: request.maxTokens } : {}),
    ...responseFormat(request, settings),
  }
}

/**
 * The `response_format` of a request: by its `outputMode` when a gate settled one (`native`: the
 * native schema with `strict: true`; `json`: `json_object`, the schema being in the system prompt;
 * `prompt`: none), else by the adapter's `structuredOutput` setting.
 */
function responseFormat(request: ModelRequest, settings: OpenAIRequestSettings): Pick<ChatCompletionCreateParamsNonStreaming, 'response_format'> {
  const schema = request.responseSchema
  switch (request.outputMode) {
    case 'native': {
      const native = request.nativeSchema ?? schema
      if (native === undefined) return {}
      return { response_format: { type: 'json_schema', json_schema: { name: settings.schemaName, schema: { ...native }, strict: true } } }
    }
    case 'json':
      return { response_format: { type: 'json_object' } }
    case 'prompt':
      return {}
    default:
      if (schema === undefined || settings.structuredOutput === false) return {}
      return {
        response_format: {
          type: 'json_schema',
          json_schema: { name: settings.schemaName, schema: { ...schema }, strict: settings.structuredOutput === 'strict' },
        },
      }
  }
}

function toWireMessage(m: Message, ids: WireToolIds): ChatCompletionMessageParam {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.content }
    case 'user':
      return { role: 'user', content: m.content }
    case 'tool':
      // Chat Completions has no error flag on tool results; the content carries the error prose.
      return { role: 'tool', tool_call_id: ids.answer(m.toolCallId ?? ''), content: m.content }
    case 'assistant': {
      const calls = m.toolCalls ?? []
      if (calls.length === 0) return { role: 'assistant', content: m.content }
      return {
        role: 'assistant',
        content: m.content === '' ? null : m.content,
        tool_calls: calls.map((c) => ({
          id: ids.use(c.id),
          type: 'function',
          function: { name: c.name, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args ?? {}) },
        })),
      }
    }
  }
}

/** A request's `toolChoice` as Chat Completions' `tool_choice`: a named tool is a function choice. */
function toWireToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.tool } }
}
