import { describe, expect, it } from 'vitest'
import { circuitBreaker, createGate, ProviderError, strictOutputRules, type Middleware } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

const invalid = '{"orderId": "42", "action": "refund", "amount": "USD 50"}'

// gate.stream runs the same attempt chain as gate.run: the built-in policies, then the user's links,
// with a streaming call at its end.
describe('gate.stream through the attempt chain', () => {
  it('hands every streamed attempt to the user links, the retry with its ephemeral tail', async () => {
    const seen: { attempt: number; messages: number; lastEphemeral: boolean }[] = []
    const watch: Middleware = (ctx, next) => {
      seen.push({ attempt: ctx.attempt, messages: ctx.request.messages.length, lastEphemeral: ctx.request.messages.at(-1)?.ephemeral === true })
      return next()
    }
    const gate = createGate({ providers: scripted([invalid, validRefundJson]), outputSchema: Refund, postDecide: strictOutputRules(3), middleware: [watch] })
    const stream = gate.stream(ask('refund #42'), { mode: 'buffer' })
    const result = await stream.result
    expect(result.attempts).toHaveLength(2)
    expect(seen).toEqual([
      { attempt: 1, messages: 1, lastEphemeral: false },
      { attempt: 2, messages: 3, lastEphemeral: true },
    ])
  })

  it('refuses a streamed attempt at an open breaker, before the provider or any link', async () => {
    const breaker = circuitBreaker({ failureThreshold: 1 })
    await createGate({ providers: scripted([new ProviderError('down', { kind: 'http-5xx', status: 503 })], { name: 'p' }), breaker })
      .run(ask('open it'))
      .catch(() => undefined)
    const provider = scripted([validRefundJson], { name: 'p' })
    let linkCalls = 0
    const gate = createGate({
      providers: provider,
      breaker,
      middleware: [
        (_ctx, next) => {
          linkCalls++
          return next()
        },
      ],
    })
    await expect(gate.stream(ask('x'), { mode: 'buffer' }).result).rejects.toMatchObject({ kind: 'circuit-open' })
    expect({ providerCalls: provider.calls, linkCalls }).toEqual({ providerCalls: 0, linkCalls: 0 })
  })
})
