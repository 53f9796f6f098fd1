import { describe, expect, it } from 'vitest'
import { Agent, ProviderError, retryTransient, strictOutputRules, type Provider } from '../../src/index.ts'
import type { StreamChunk } from '../../src/model/index.ts'
import { Refund, validRefund, validRefundJson } from '../support/schemas.ts'
import { collect } from '../support/collect-stream.ts'

const ok = { content: validRefundJson, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
const text = (t: unknown): unknown => ({ type: 'text', text: t })
const done = (response: unknown = ok): unknown => ({ type: 'done', response })

/** A provider streaming `scripts[i]` on call i (the last one repeats); a function script replaces stream(). */
function streaming(...scripts: readonly (readonly unknown[] | (() => unknown))[]): Provider & { calls: number } {
  let calls = 0
  return {
    name: 'streamer',
    get calls() {
      return calls
    },
    complete: () => Promise.reject(new Error('stream only')),
    stream() {
      const script = scripts[Math.min(calls++, scripts.length - 1)] as readonly unknown[] | (() => unknown)
      if (typeof script === 'function') return script() as AsyncIterable<StreamChunk>
      return (async function* () {
        for (const c of script) {
          if (c instanceof Error) throw c
          yield c as StreamChunk
        }
      })()
    },
  }
}

const agentOn = (provider: Provider, postDecide = strictOutputRules(1)) => Agent.create({ provider }).outputSchema(Refund).reliability({ postDecide }).build()

describe('hostile streams', () => {
  it.each([
    ['a done chunk whose response is null', [text('{'), done(null)]],
    ['a done chunk whose response has numeric content', [done({ ...ok, content: 5 })]],
    ['a done chunk whose toolCalls hold null', [done({ ...ok, toolCalls: [null] })]],
    ['a null chunk', [null]],
    ['a chunk that is a number', [42]],
    ['a chunk without a type', [{ text: 'x' }]],
    ['a text chunk whose text is an object', [text({})]],
    ['a stream() that returns a string', () => 'not a stream'],
    ['an iterator whose next answers undefined', () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve(undefined) }) })],
  ])('fail %s as kind malformed-response and leave the history untouched', async (_name, script) => {
    const agent = agentOn(streaming(script as never))
    const stream = agent.stream('go', { mode: 'buffer' })
    await expect(stream.result).rejects.toMatchObject({ kind: 'malformed-response', phase: 'post-decide' })
    await expect(collect(stream)).rejects.toMatchObject({ kind: 'malformed-response' })
    expect(agent.history).toEqual([])
  })

  it('retries a stream that fails mid-way with a 5xx and delivers only the accepted attempt in buffer mode', async () => {
    const provider = streaming([text('{"orderId":'), new ProviderError('overloaded', { kind: 'http-5xx' })], [text(validRefundJson), done()])
    const agent = agentOn(provider, [retryTransient({ backoff: () => 0 })])
    const events = await collect(agent.stream('go', { mode: 'buffer' }))
    expect(
      events
        .filter((e) => e.type === 'text')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe(validRefundJson)
    expect(events.at(-1)).toMatchObject({ type: 'result', attempt: 2 })
    expect(agent.history).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: validRefundJson },
    ])
  })

  it('accepts a stream that ends without its done chunk from the text received, with estimated usage', async () => {
    const agent = agentOn(streaming([text(validRefundJson.slice(0, 10)), text(validRefundJson.slice(10))]))
    const result = await agent.stream('go', { mode: 'buffer' }).result
    expect(result.value).toEqual(validRefund)
    expect(result.usage.estimated).toBe(true)
  })

  it('fails fast with mid-stream-not-retryable when a passthrough answer fails after content was delivered', async () => {
    const agent = agentOn(streaming([text('not json'), done({ ...ok, content: 'not json' })], [text(validRefundJson), done()]), strictOutputRules(3))
    await expect(agent.stream('go', { mode: 'passthrough' }).result).rejects.toMatchObject({ kind: 'mid-stream-not-retryable' })
    expect(agent.history).toEqual([])
  })

  it.each(['progressive', 'passthrough', 'buffer'] as const)(
    'settles a %s stream that hangs between chunks with kind aborted once the run is aborted',
    async (mode) => {
      const hanging = streaming(() =>
        (async function* () {
          yield { type: 'text', text: '{' } as StreamChunk
          await new Promise(() => {})
        })(),
      )
      const controller = new AbortController()
      const stream = agentOn(hanging).stream('go', { mode, signal: controller.signal })
      setTimeout(() => controller.abort(), 5)
      await expect(stream.result).rejects.toMatchObject({ kind: 'aborted' })
    },
  )
})
