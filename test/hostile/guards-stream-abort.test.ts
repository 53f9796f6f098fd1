import { describe, expect, it } from 'vitest'
import { Agent, contentGuard, createGate, isReliabilityFailFastError } from '../../src/index.ts'
import type { Provider } from '../../src/model/provider.ts'

// A provider that streams without end, a delta a tick: only the caller's abort ends the stream.
const endless = {
  name: 'endless',
  complete: async () => ({ content: 'x' }),
  async *stream(request: { signal?: AbortSignal }) {
    for (let i = 0; ; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1))
      if (request.signal?.aborted === true) return
      yield { type: 'text', text: `c${i} ` }
    }
  },
} as unknown as Provider

// Holds back everything it is shown: the worst lookback a guard may declare.
const holdAll = contentGuard('holdAll', () => ({ action: 'allow' }), { surfaces: ['stream'], lookback: 1_000_000 })

async function drained(stream: AsyncIterable<{ type: string }> & { result: Promise<unknown> }, abort: () => void) {
  const texts: unknown[] = []
  let error: unknown
  let aborted = false
  try {
    for await (const event of stream) {
      if (event.type === 'text') texts.push(event)
      if (!aborted) {
        aborted = true
        setTimeout(abort, 20)
      }
    }
  } catch (e) {
    error = e
  }
  await stream.result.catch(() => undefined)
  return { texts, error }
}

describe('a held-back stream aborted by its caller', () => {
  for (const mode of ['passthrough', 'buffer', 'progressive'] as const) {
    it(`releases nothing held and fails aborted (agent.stream, ${mode})`, async () => {
      const controller = new AbortController()
      const agent = Agent.create({ provider: endless, model: 'm', contentGuards: [holdAll] }).build()
      setTimeout(() => controller.abort(new Error('stop')), 20)
      const { texts, error } = await drained(agent.stream('hi', { signal: controller.signal, mode }), () => controller.abort(new Error('stop')))
      expect(texts).toEqual([])
      expect(isReliabilityFailFastError(error) && error.kind).toBe('aborted')
    })

    it(`releases nothing held and fails aborted (gate.stream, ${mode})`, async () => {
      const controller = new AbortController()
      const gate = createGate({ providers: endless, contentGuards: [holdAll] })
      setTimeout(() => controller.abort(new Error('stop')), 20)
      const stream = gate.stream({ messages: [{ role: 'user', content: 'x' }], signal: controller.signal }, { mode })
      const { texts, error } = await drained(stream, () => controller.abort(new Error('stop')))
      expect(texts).toEqual([])
      expect(isReliabilityFailFastError(error) && error.kind).toBe('aborted')
    })
  }
})
