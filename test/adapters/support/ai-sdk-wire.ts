import { chunkText, type Reply } from './loopback-server.ts'

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input - 8, cacheRead: 8, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
})

/** The AI SDK gateway's `/language-model` JSON reply: a v4 generate result. */
export function gatewayText(text: string): Reply {
  return { kind: 'json', body: { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(30, 10), warnings: [] } }
}

/** A gateway reply with one tool call (input as the raw JSON string, as the v4 spec has it). */
export function gatewayToolCall(id: string, name: string, input: string): Reply {
  return {
    kind: 'json',
    body: {
      content: [{ type: 'tool-call', toolCallId: id, toolName: name, input }],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: usage(30, 10),
      warnings: [],
    },
  }
}

/** A gateway error reply. */
export function gatewayError(status: number, type: string, headers: Record<string, string> = {}): Reply {
  return { kind: 'json', status, headers, body: { error: { message: `${type} (${status})`, type } } }
}

/** The gateway's SSE stream: one v4 stream part per `data:` frame. */
export function gatewaySse(text: string, options: { chunkSize?: number; frameDelayMs?: number } = {}): Reply {
  const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
  const frames = [frame({ type: 'stream-start', warnings: [] }), frame({ type: 'text-start', id: 't0' })]
  for (const delta of chunkText(text, options.chunkSize ?? 4)) frames.push(frame({ type: 'text-delta', id: 't0', delta }))
  frames.push(frame({ type: 'text-end', id: 't0' }))
  frames.push(frame({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: usage(30, Math.ceil(text.length / 4)) }))
  return { kind: 'sse', frames, ...(options.frameDelayMs !== undefined ? { frameDelayMs: options.frameDelayMs } : {}) }
}
