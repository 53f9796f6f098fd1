import { chunkText, type Reply } from './loopback-server.ts'

const usage = { input_tokens: 40, output_tokens: 12, cache_read_input_tokens: 30, cache_creation_input_tokens: 5 }

/** A Messages API JSON reply. */
export function anthropicMessage(content: readonly unknown[], stop = 'end_turn', u: Record<string, number> = usage): Reply {
  return {
    kind: 'json',
    body: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content, stop_reason: stop, stop_sequence: null, usage: u },
  }
}

/** A Messages API JSON reply with one text block. */
export const anthropicText = (text: string, stop = 'end_turn'): Reply => anthropicMessage([{ type: 'text', text }], stop)

/** An Anthropic API error reply (`overloaded_error` for 529). */
export function anthropicError(status: number, type: string, headers: Record<string, string> = {}): Reply {
  return { kind: 'json', status, headers, body: { type: 'error', error: { type, message: `${type} (${status})` } } }
}

const sse = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify({ type, ...(data as object) })}\n\n`

/** The `message_start` event of a stream: an empty assistant message with its opening usage. */
const messageStart = (id: string, u: Record<string, number>) =>
  sse('message_start', {
    message: { id, type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: u },
  })

/** An SSE stream: message_start, one text block of deltas, message_delta, message_stop. */
export function anthropicSse(text: string, options: { chunkSize?: number; frameDelayMs?: number; stop?: string } = {}): Reply {
  const frames = [
    messageStart('msg_1', { input_tokens: 40, output_tokens: 1, cache_read_input_tokens: 30, cache_creation_input_tokens: 0 }),
    sse('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    sse('ping', {}),
  ]
  for (const piece of chunkText(text, options.chunkSize ?? 4)) frames.push(sse('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } }))
  frames.push(sse('content_block_stop', { index: 0 }))
  frames.push(
    sse('message_delta', { delta: { stop_reason: options.stop ?? 'end_turn', stop_sequence: null }, usage: { output_tokens: Math.ceil(text.length / 4) } }),
  )
  frames.push(sse('message_stop', {}))
  return { kind: 'sse', frames, ...(options.frameDelayMs !== undefined ? { frameDelayMs: options.frameDelayMs } : {}) }
}

/** An SSE stream of one tool_use block whose input arrives as JSON fragments. */
export function anthropicToolSse(id: string, name: string, fragments: readonly string[]): Reply {
  return {
    kind: 'sse',
    frames: [
      messageStart('msg_2', { input_tokens: 50, output_tokens: 1 }),
      sse('content_block_start', { index: 0, content_block: { type: 'tool_use', id, name, input: {} } }),
      ...fragments.map((f) => sse('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: f } })),
      sse('content_block_stop', { index: 0 }),
      sse('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } }),
      sse('message_stop', {}),
    ],
  }
}

/** An SSE stream that starts and then reports an `overloaded_error` event. */
export function anthropicSseOverloaded(): Reply {
  return {
    kind: 'sse',
    frames: [
      messageStart('msg_3', { input_tokens: 40, output_tokens: 1 }),
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
    ],
  }
}

/** A thinking block as the Messages API returns it. */
export const thinking = (text: string, signature: string) => ({ type: 'thinking', thinking: text, signature })
/** A redacted thinking block as the Messages API returns it. */
export const redactedThinking = (data: string) => ({ type: 'redacted_thinking', data })

/**
 * Answers like the Messages API with extended thinking on: a request whose last user turn holds
 * tool results is refused (400 `invalid_request_error`) unless the assistant turn before it starts
 * with thinking blocks, each exactly as issued earlier (same text and signature). Otherwise the
 * request gets `replies[i]` and the thinking blocks in it count as issued.
 */
export function withThinkingRules(replies: readonly Reply[]): (request: { body: any }, index: number) => Reply {
  const issued = new Map<string, string>()
  let answered = 0
  return (request) => {
    const messages: any[] = request.body?.messages ?? []
    const last = messages.at(-1)
    const hasToolResult = last?.role === 'user' && Array.isArray(last.content) && last.content.some((b: any) => b.type === 'tool_result')
    if (request.body?.thinking?.type === 'enabled' && hasToolResult) {
      const assistant = messages.at(-2)
      const first = assistant?.content?.[0]
      if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking') {
        return anthropicError(400, 'invalid_request_error')
      }
      for (const block of assistant.content) {
        if (block.type === 'thinking' && issued.get(block.signature) !== block.thinking) return anthropicError(400, 'invalid_request_error')
        if (block.type === 'redacted_thinking' && !issued.has(`redacted:${block.data}`)) return anthropicError(400, 'invalid_request_error')
      }
    }
    const reply = replies[Math.min(answered++, replies.length - 1)] as Reply
    if (reply.kind === 'json') {
      for (const block of (reply.body as any)?.content ?? []) {
        if (block.type === 'thinking') issued.set(block.signature, block.thinking)
        if (block.type === 'redacted_thinking') issued.set(`redacted:${block.data}`, '')
      }
    }
    return reply
  }
}

/** An SSE stream of a thinking block (text deltas, then its signature), a redacted block and a tool_use block. */
export function anthropicThinkingSse(text: readonly string[], signature: string, redacted: string, tool: { id: string; name: string; json: string }): Reply {
  return {
    kind: 'sse',
    frames: [
      messageStart('msg_4', { input_tokens: 50, output_tokens: 1 }),
      sse('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      ...text.map((t) => sse('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: t } })),
      sse('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature } }),
      sse('content_block_stop', { index: 0 }),
      sse('content_block_start', { index: 1, content_block: { type: 'redacted_thinking', data: redacted } }),
      sse('content_block_stop', { index: 1 }),
      sse('content_block_start', { index: 2, content_block: { type: 'tool_use', id: tool.id, name: tool.name, input: {} } }),
      sse('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: tool.json } }),
      sse('content_block_stop', { index: 2 }),
      sse('message_delta', { delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 30 } }),
      sse('message_stop', {}),
    ],
  }
}
