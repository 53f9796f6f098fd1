import { chunkText, type Reply } from './loopback-server.ts'

const base = { id: 'chatcmpl-1', created: 1_700_000_000, model: 'gpt-test', system_fingerprint: 'fp' }

/** A `chat.completion` JSON reply with text content. */
export function openaiText(content: string, usage = { prompt_tokens: 20, completion_tokens: 10 }): Reply {
  return {
    kind: 'json',
    body: {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content, refusal: null } }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  }
}

/**
 * A `chat.completion` JSON reply whose one choice carries `message` exactly as given (hostile shapes
 * included: a null call, a call without an id) and ends with `finish`.
 */
export function openaiCompletion(message: unknown, finish: string, usage = { prompt_tokens: 20, completion_tokens: 5 }): Reply {
  return {
    kind: 'json',
    body: {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, finish_reason: finish, logprobs: null, message }],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  }
}

/** A `chat.completion` JSON reply with tool calls (arguments as raw strings). */
export function openaiToolCalls(calls: readonly { id: string; name: string; arguments: string }[]): Reply {
  return {
    kind: 'json',
    body: {
      ...base,
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          logprobs: null,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
          },
        },
      ],
      usage: { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42, prompt_tokens_details: { cached_tokens: 10 } },
    },
  }
}

/** An OpenAI API error reply. */
export function openaiError(status: number, headers: Record<string, string> = {}, type = 'server_error'): Reply {
  return { kind: 'json', status, headers, body: { error: { message: `status ${status}`, type, code: null, param: null } } }
}

/** An SSE stream of `chat.completion.chunk` events ending with a usage chunk and `data: [DONE]`. */
export function openaiSse(text: string, options: { chunkSize?: number; frameDelayMs?: number; finish?: string } = {}): Reply {
  const frame = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`
  const chunk = (delta: unknown, finish: string | null = null) =>
    frame({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })
  const frames = [chunk({ role: 'assistant', content: '' })]
  for (const piece of chunkText(text, options.chunkSize ?? 4)) frames.push(chunk({ content: piece }))
  frames.push(chunk({}, options.finish ?? 'stop'))
  frames.push(
    frame({
      ...base,
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 20, completion_tokens: Math.ceil(text.length / 4), total_tokens: 20 + Math.ceil(text.length / 4) },
    }),
  )
  frames.push('data: [DONE]\n\n')
  return { kind: 'sse', frames, ...(options.frameDelayMs !== undefined ? { frameDelayMs: options.frameDelayMs } : {}) }
}
