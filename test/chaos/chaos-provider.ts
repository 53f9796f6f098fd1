import { ProviderError, type ModelRequest, type ModelResponse, type Provider } from '../../src/index.ts'
import type { StreamChunk } from '../../src/model/index.ts'
import { createRandom, hashString, mixSeed, type Random } from '../../src/providers/simulated/prng.ts'

/** What the chaos provider did on one call. */
export type ChaosAct = 'throw-5xx' | 'rate-limit' | 'malformed' | 'hang' | 'invalid-json' | 'bad-tool-args' | 'tool-call' | 'answer'

/** The session token a conversation carries in every user message: `S<number>`. */
export const SESSION = /\bS\d+\b/

const MALFORMED: readonly unknown[] = [null, {}, 42, { content: 7, toolCalls: [] }, { content: '{}', toolCalls: [null] }, { content: '{}', toolCalls: null }]

/**
 * A seeded model that misbehaves: each call draws its act from the seed, the session named in the
 * conversation and that session's call count, so a session replays the same way whatever the
 * interleaving of the other sessions. It answers only about the session named in the conversation, so any
 * cross-talk between sessions shows in their histories.
 */
export function chaosProvider(seed: number): Provider & { readonly acts: Record<ChaosAct, number> } {
  const acts: Record<ChaosAct, number> = {
    'throw-5xx': 0,
    'rate-limit': 0,
    malformed: 0,
    hang: 0,
    'invalid-json': 0,
    'bad-tool-args': 0,
    'tool-call': 0,
    answer: 0,
  }

  const calls = new Map<string, number>()
  const draw = (request: ModelRequest): { random: Random; session: string; act: ChaosAct } => {
    const first = request.messages.find((m) => m.role === 'user')?.content ?? ''
    const session = SESSION.exec(first)?.[0] ?? 'S?'
    // A session's calls are sequential, so its own call count replays whatever the other sessions do.
    const call = (calls.get(session) ?? 0) + 1
    calls.set(session, call)
    const random = createRandom(mixSeed(seed, hashString(session), call))
    // No tools offered (a streamed turn), or one already answered: the model answers instead.
    const toolDone = request.tools === undefined || request.messages.some((m) => m.role === 'tool' && m.isError !== true)
    const r = random.next()
    const act: ChaosAct =
      r < 0.08
        ? 'throw-5xx'
        : r < 0.14
          ? 'rate-limit'
          : r < 0.2
            ? 'malformed'
            : r < 0.23
              ? 'hang'
              : r < 0.32
                ? 'invalid-json'
                : !toolDone && r < 0.42
                  ? 'bad-tool-args'
                  : !toolDone && r < 0.6
                    ? 'tool-call'
                    : 'answer'
    acts[act]++
    return { random, session, act }
  }

  const respond = (request: ModelRequest): Promise<ModelResponse> => {
    const { random, session, act } = draw(request)
    const usage = { inputTokens: 10 + random.int(0, 50), outputTokens: 5 + random.int(0, 20) }
    const answer = (content: string, toolCalls: ModelResponse['toolCalls'] = []): Promise<ModelResponse> =>
      new Promise((resolve) =>
        setTimeout(() => resolve({ content, toolCalls, usage, stopReason: toolCalls.length > 0 ? 'tool_use' : 'end' }), random.int(0, 3)),
      )
    switch (act) {
      case 'throw-5xx':
        return Promise.reject(new ProviderError('overloaded', { kind: 'http-5xx', status: 503 }))
      case 'rate-limit':
        return Promise.reject(new ProviderError('slow down', { kind: 'rate-limit', status: 429, retryAfterMs: random.int(1, 3) }))
      case 'malformed':
        return Promise.resolve(random.pick(MALFORMED) as ModelResponse)
      case 'hang':
        // Ignores its signal on purpose: only the gate's deadline or the run's abort can end it.
        return new Promise(() => {})
      case 'invalid-json':
        return answer(random.pick(['Sure! Here it is:', `{"session": "${session}", "n": "many"}`, '{"session": ', `{"session": "${session}"}`]))
      case 'bad-tool-args':
        return answer('', [
          { id: `call-${random.int(0, 1e6)}`, name: 'lookup', args: random.pick([{}, { session: 7 }, '{not json', { session: session, extra: true }]) },
        ])
      case 'tool-call':
        return answer('', [{ id: `call-${random.int(0, 1e6)}`, name: 'lookup', args: { session } }])
      case 'answer':
        return answer(JSON.stringify({ session, n: random.int(0, 100) }))
    }
  }

  return {
    name: 'chaos',
    acts,
    complete: respond,
    stream(request) {
      const signal = request.signal
      return (async function* (): AsyncGenerator<StreamChunk> {
        const response = await respond(request)
        const text = typeof response?.content === 'string' ? response.content : ''
        // A slow stream: the text in small chunks with pauses.
        for (let at = 0; at < text.length; at += 4) {
          if (signal?.aborted === true) throw signal.reason
          yield { type: 'text', text: text.slice(at, at + 4) }
          await new Promise((resolve) => setTimeout(resolve, 1))
        }
        yield { type: 'done', response }
      })()
    },
  }
}
