import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import type { Message } from '../../model/message.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { ToolSpec } from '../../model/tool-call.ts'
import { isRecord } from '../../model/is-record.ts'
import { malformedResponse } from '../../providers/adapter-kit/malformed-response.ts'
import { MISSING_USAGE, tokenCount } from '../../providers/adapter-kit/token-count.ts'

/** A text view of LangChain messages, for the gate's scope and rules; the wire keeps the originals. */
export function fromLangChain(messages: readonly BaseMessage[]): Message[] {
  const out: Message[] = []
  for (const m of messages) {
    const type = m.type
    const content = m.text
    if (type === 'human') out.push({ role: 'user', content })
    else if (type === 'system') out.push({ role: 'system', content })
    else if (type === 'tool') {
      const tool = m as ToolMessage
      out.push({
        role: 'tool',
        content,
        toolCallId: tool.tool_call_id,
        ...(tool.name !== undefined ? { toolName: tool.name } : {}),
        ...(tool.status === 'error' ? { isError: true } : {}),
      })
    } else if (type === 'ai') {
      const calls = (m as AIMessage).tool_calls ?? []
      out.push({ role: 'assistant', content, ...(calls.length > 0 ? { toolCalls: calls.map((c) => ({ id: c.id ?? '', name: c.name, args: c.args })) } : {}) })
    }
  }
  return out
}

/** The gate's ephemeral tail as LangChain messages (what the model sees on a retry, never stored). */
export function toLangChain(messages: readonly Message[]): BaseMessage[] {
  return messages.map((m) => {
    if (m.role === 'assistant') {
      const calls = (m.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, args: (c.args ?? {}) as Record<string, unknown>, type: 'tool_call' as const }))
      return new AIMessage({ content: m.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) })
    }
    if (m.role === 'tool')
      return new ToolMessage({ content: m.content, tool_call_id: m.toolCallId ?? '', ...(m.isError === true ? { status: 'error' as const } : {}) })
    return new HumanMessage(m.content)
  })
}

/**
 * A LangChain answer as the gate's response: text, tool calls, usage and why it stopped. A message
 * whose text or tool calls cannot be read (content parts that are `null`, a call that is no object)
 * is no answer: kind `malformed-response`, as for any provider. A usage the chat model did not
 * report, or reported as no count, is `NaN`, never 0: the gate estimates it, so no call is free.
 */
export function toModelResponse(message: AIMessage): ModelResponse {
  let content: string
  let calls: readonly unknown[]
  try {
    content = message.text
    calls = message.tool_calls ?? []
  } catch {
    throw malformedResponse('langchain', 'an AIMessage', message)
  }
  if (!calls.every(isRecord)) throw malformedResponse('langchain', 'an AIMessage whose tool calls are objects', message)
  const usage: unknown = message.usage_metadata
  const finish = (message.response_metadata as { finish_reason?: unknown; stop_reason?: unknown } | undefined) ?? {}
  const reason = finish.finish_reason ?? finish.stop_reason
  return {
    content,
    toolCalls: (calls as NonNullable<AIMessage['tool_calls']>).map((c) => ({ id: c.id ?? '', name: c.name, args: c.args })),
    usage: isRecord(usage) ? { inputTokens: tokenCount(usage['input_tokens']), outputTokens: tokenCount(usage['output_tokens']) } : MISSING_USAGE,
    stopReason: reason === 'length' || reason === 'max_tokens' ? 'max_tokens' : calls.length > 0 ? 'tool_use' : 'end',
  }
}

/** A gate's response as an `AIMessage` (a fallback's answer, which no model gave): text and tool calls. */
export function toAIMessage(response: ModelResponse): AIMessage {
  const calls = response.toolCalls.map((c) => ({ id: c.id, name: c.name, args: (c.args ?? {}) as Record<string, unknown>, type: 'tool_call' as const }))
  return new AIMessage({ content: response.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) })
}

/**
 * The model's message with the text the gate accepted: itself when the gate kept its text, else a
 * copy holding that text (the output guards redacted it), with its id, tool calls and metadata.
 */
export function withText(message: AIMessage, text: string): AIMessage {
  if (message.text === text) return message
  return new AIMessage({
    content: text,
    ...(message.id !== undefined ? { id: message.id } : {}),
    ...(message.tool_calls !== undefined && message.tool_calls.length > 0 ? { tool_calls: message.tool_calls } : {}),
    ...(message.usage_metadata !== undefined ? { usage_metadata: message.usage_metadata } : {}),
    response_metadata: message.response_metadata,
  })
}

/** The request's tools as the gate's request names them (for a `toolChoice` pinned to one); the wire keeps the tools themselves. */
export function toolSpecs(tools: readonly unknown[]): ToolSpec[] {
  const out: ToolSpec[] = []
  for (const tool of tools) {
    const { name, description } = (tool ?? {}) as { name?: unknown; description?: unknown }
    if (typeof name === 'string' && name !== '') out.push({ name, ...(typeof description === 'string' ? { description } : {}), inputSchema: {} })
  }
  return out
}
