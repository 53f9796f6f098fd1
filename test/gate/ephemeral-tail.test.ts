import { describe, expect, it } from 'vitest'
import { createGate, strictOutputRules, type Message, type ModelRequest } from '../../src/index.ts'
import { withTail } from '../../src/gate/index.ts'
import { TRUNCATION_MARKER } from '../../src/validation/building-blocks.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

const bads = (n: number) => Array.from({ length: n }, (_, i) => `{"orderId": "42", "action": "refund", "amount": "USD ${i}"}`)

describe('ephemeral tail', () => {
  it('ends the retry request with the previous output and the feedback, both ephemeral', async () => {
    const provider = scripted([...bads(1), validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3), retryHint: 'Amounts are plain numbers.' })
    const base = ask('refund #42')
    await gate.run(base)
    const retry = provider.requests[1] as ModelRequest
    expect(retry.messages).toHaveLength(3)
    expect(retry.messages[0]).toEqual(base.messages[0])
    const [, previous, feedback] = retry.messages as Message[]
    expect(previous).toMatchObject({ role: 'assistant', ephemeral: true, content: bads(1)[0] })
    expect(feedback?.role).toBe('user')
    expect(feedback?.ephemeral).toBe(true)
    expect(feedback?.content).toContain(`- 'amount': expected number, got "USD 0"`)
    expect(feedback?.content).toContain('Amounts are plain numbers.')
  })

  it('keeps the retry request bounded in latest mode however many retries happen', async () => {
    const provider = scripted([...bads(6), validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(10) })
    await gate.run(ask('refund #42'))
    const size = (r: ModelRequest | undefined) => JSON.stringify(r?.messages).length
    expect(provider.requests).toHaveLength(7)
    expect(size(provider.requests[5])).toBeLessThanOrEqual(size(provider.requests[1]))
    expect(provider.requests[5]?.messages).toHaveLength(3)
  })

  it('keeps every feedback pair in accumulate mode', async () => {
    const provider = scripted([...bads(3), validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(10), feedbackMode: 'accumulate' })
    await gate.run(ask('refund #42'))
    expect(provider.requests[3]?.messages).toHaveLength(7)
    expect(provider.requests[3]?.messages.slice(1).every((m) => m.ephemeral === true)).toBe(true)
  })

  it('grows the accumulated tail by at most maxFeedbackChars per retry, whatever the model writes', async () => {
    const huge = (i: number) => `{"orderId": "${String(i).repeat(200_000)}", "amount": "${String(i).repeat(100_000)}", ${'"k": 1, '.repeat(5_000)}"z": 0}`
    const provider = scripted([huge(1), huge(2), huge(3), huge(4), validRefundJson])
    const maxFeedbackChars = 1_500
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(10), feedbackMode: 'accumulate', maxFeedbackChars })
    await gate.run(ask('refund #42'))
    expect(provider.requests).toHaveLength(5)
    for (let retry = 1; retry <= 4; retry++) {
      const tail = (provider.requests[retry]?.messages ?? []).slice(1)
      expect(tail).toHaveLength(2 * retry)
      for (let pair = 0; pair < retry; pair++) {
        const [echo, feedback] = tail.slice(2 * pair, 2 * pair + 2)
        expect((echo?.content.length ?? 0) + (feedback?.content.length ?? 0)).toBeLessThanOrEqual(maxFeedbackChars)
      }
      expect(tail.reduce((n, m) => n + m.content.length, 0)).toBeLessThanOrEqual(retry * maxFeedbackChars)
    }
  })

  it('resends the base request unchanged when errorFeedback is false', async () => {
    const provider = scripted([...bads(1), validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3), errorFeedback: false })
    const base = ask('refund #42')
    await gate.run(base)
    expect(provider.requests[1]?.messages).toEqual(base.messages)
  })

  it('truncates a long previous output with the marker', async () => {
    const long = `{"orderId": "${'x'.repeat(10_000)}"}`
    const provider = scripted([long, validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(3), maxFeedbackChars: 500 })
    await gate.run(ask('x'))
    const echoed = provider.requests[1]?.messages[1]?.content ?? ''
    expect(echoed.length).toBeLessThan(600)
    expect(echoed.endsWith(TRUNCATION_MARKER)).toBe(true)
  })

  it('uses a rule feedback string, function, or async function, and a generic message when it throws', async () => {
    const cases = [
      { feedbackForLLM: 'fixed text', expected: 'fixed text' },
      { feedbackForLLM: (s: { attempt: number }) => `attempt ${s.attempt} failed`, expected: 'attempt 1 failed' },
      { feedbackForLLM: async () => 'async text', expected: 'async text' },
      {
        feedbackForLLM: () => {
          throw new Error('boom')
        },
        expected: 'Previous output failed validation',
      },
    ]
    for (const c of cases) {
      const provider = scripted(['nope', validRefundJson])
      const gate = createGate({
        providers: provider,
        outputSchema: Refund,
        postDecide: [{ when: (s) => s.validationError !== undefined, then: 'retry', kind: 'custom', feedbackForLLM: c.feedbackForLLM }],
      })
      const result = await gate.run(ask('x'))
      expect(provider.requests[1]?.messages.at(-1)?.content).toContain(c.expected)
      expect(result.attempts[0]?.feedbackSent).toContain(c.expected)
    }
  })

  it('never mutates the caller request or its messages', async () => {
    const provider = scripted([...bads(2), validRefundJson])
    const gate = createGate({ providers: provider, outputSchema: Refund, postDecide: strictOutputRules(5) })
    const base = ask('refund #42')
    const snapshot = structuredClone(base)
    Object.freeze(base.messages)
    await gate.run(base)
    expect(base).toEqual(snapshot)
  })
})

describe('withTail', () => {
  it('returns the base request itself when the tail is empty', () => {
    const base = ask('x')
    expect(withTail(base, [])).toBe(base)
  })

  it('joins base and tail without touching the base array, at once for a short history and lazily for a long one', () => {
    const tail: Message[] = [{ role: 'user', content: 'fix it', ephemeral: true }]
    for (const size of [1, 64, 65, 10_000]) {
      const history: Message[] = Array.from({ length: size }, (_, i) => ({ role: 'user', content: `m${i}` }))
      const base = { messages: history, model: 'm', temperature: 0 }
      const req = withTail(base, tail)
      const lazy = typeof Object.getOwnPropertyDescriptor(req, 'messages')?.get === 'function'
      expect({ size, lazy }).toEqual({ size, lazy: size > 64 })
      expect(req).toMatchObject({ model: 'm', temperature: 0 })
      expect(req.messages).toHaveLength(size + 1)
      expect(req.messages.at(-1)).toBe(tail[0])
      expect(req.messages).toBe(req.messages)
      // A copy made the way middleware makes one keeps every field, messages included.
      expect({ ...req }.messages).toEqual(req.messages)
      expect(base.messages).toHaveLength(size)
      // A copy of its property descriptors (how the deadline adds a signal) still joins, and so does JSON.
      const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(req)) as typeof req
      expect(copy.messages).toEqual(req.messages)
      expect((JSON.parse(JSON.stringify(req)) as typeof req).messages).toHaveLength(size + 1)
      expect(Object.keys(req).sort()).toEqual(['messages', 'model', 'temperature'])
    }
  })

  it('lazily joined requests never share their parts, and share one shape', () => {
    const history: Message[] = Array.from({ length: 100 }, (_, i) => ({ role: 'user', content: `m${i}` }))
    const a = withTail({ messages: history }, [{ role: 'user', content: 'a' }])
    const b = withTail({ messages: history }, [{ role: 'user', content: 'b' }])
    expect(a.messages.at(-1)?.content).toBe('a')
    expect(b.messages.at(-1)?.content).toBe('b')
    expect(Object.getOwnPropertyDescriptor(a, 'messages')?.get).toBe(Object.getOwnPropertyDescriptor(b, 'messages')?.get)
  })
})
