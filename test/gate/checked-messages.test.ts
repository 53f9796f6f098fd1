import { describe, expect, it } from 'vitest'
import { createGate, failoverRule, ProviderError, strictOutputRules, type Message, type ModelRequest, type Provider } from '../../src/index.ts'
import { Refund, validRefundJson } from '../support/schemas.ts'

const invalidRefundJson = '{"orderId": "42", "action": "refund", "amount": "USD 50"}'
const checked: readonly Message[] = [{ role: 'user', content: 'refund order 42' }]

/** A provider that keeps the messages of every request it is sent and answers from `answers` in turn. */
function recording(answers: readonly (string | Error)[], name = 'p'): Provider & { readonly seen: (readonly Message[])[] } {
  const seen: (readonly Message[])[] = []
  let i = 0
  return {
    name,
    seen,
    complete: async (request) => {
      seen.push(request.messages.filter((m) => m.ephemeral !== true))
      const answer = answers[Math.min(i++, answers.length - 1)] as string | Error
      if (answer instanceof Error) throw answer
      return { content: answer, toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
    },
  }
}

/** A request whose `messages` getter answers the checked history once, then `later` on every read after. */
function changingRequest(later: unknown): { readonly request: ModelRequest; readonly reads: () => number } {
  let reads = 0
  const request = {
    get messages() {
      return reads++ === 0 ? checked : later
    },
  } as unknown as ModelRequest
  return { request, reads: () => reads }
}

const LATER: readonly [string, unknown][] = [
  ['null', null],
  ['a string', 'refund order 42'],
  ['a message with an unknown role', [{ role: 'human', content: 1 }]],
  ['a longer valid history', [...checked, { role: 'assistant', content: 'done' }, { role: 'user', content: 'and 43' }]],
]

describe('the messages a run sends', () => {
  it.each(LATER)('are those its check validated, on every attempt, when the messages getter answers %s later', async (_name, later) => {
    for (const outputSchema of [Refund, undefined]) {
      const { request } = changingRequest(later)
      const provider = recording([invalidRefundJson, validRefundJson])
      const gate = createGate({ providers: provider, ...(outputSchema === undefined ? {} : { outputSchema }), postDecide: strictOutputRules(3) })
      await gate.run(request)
      expect(provider.seen.length).toBeGreaterThan(0)
      for (const sent of provider.seen) expect(sent).toEqual(checked)
    }
  })

  it('are those its check validated after a failover to the next provider', async () => {
    const { request } = changingRequest(null)
    const first = recording([new ProviderError('slow down', { kind: 'rate-limit', status: 429 })], 'first')
    const second = recording([validRefundJson], 'second')
    const gate = createGate({ providers: [first, second], outputSchema: Refund, postDecide: [failoverRule(), ...strictOutputRules(3)] })
    const result = await gate.run(request)
    expect(result.attempts.map((a) => a.provider)).toEqual(['first', 'second'])
    expect(second.seen).toEqual([checked])
  })

  it('are the same array for a getter that answers a fresh copy on each read', async () => {
    let reads = 0
    const request = {
      get messages() {
        reads++
        return checked.map((m) => ({ ...m }))
      },
    } as unknown as ModelRequest
    const provider = recording([invalidRefundJson, validRefundJson])
    await createGate({ providers: provider, postDecide: strictOutputRules(3), outputSchema: Refund }).run(request)
    expect(provider.seen).toHaveLength(2)
    expect(provider.seen[0]).toEqual(checked)
    expect(reads).toBeLessThanOrEqual(2)
  })

  it('is the caller’s own request, uncopied, when it is a plain object and nothing is added', async () => {
    const request: ModelRequest = { messages: checked }
    const sent: ModelRequest[] = []
    const provider: Provider = {
      name: 'p',
      complete: async (r) => {
        sent.push(r)
        return { content: 'ok', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'end' }
      },
    }
    await createGate({ providers: provider }).run(request)
    expect(sent[0]).toBe(request)
  })
})
