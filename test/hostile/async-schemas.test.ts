import { describe, expect, it } from 'vitest'
import { Agent, createGate, strictOutputRules } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, validRefund, validRefundJson } from '../support/schemas.ts'
import { expectNoUnhandledRejections } from '../support/no-unhandled-rejections.ts'

expectNoUnhandledRejections()

/** A `{ parse }` schema whose parse answers asynchronously, as a database lookup would. */
function asyncParse(check: (value: unknown) => Promise<unknown>) {
  return { parse: (value: unknown) => check(value) }
}

const isRefund = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && (value as { orderId?: unknown }).orderId === '42' && (value as { amount?: unknown }).amount === 50

describe('a { parse } schema that answers with a promise is awaited at the boundary', () => {
  it('accepts the value the promise resolves to, not the promise', async () => {
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: asyncParse(async (v) => ({ ...(v as object), checked: true })) })
    const result = await gate.run(ask('x'))
    expect(result.value).toEqual({ ...validRefund, checked: true })
    expect(result.value).not.toBeInstanceOf(Promise)
  })

  it('treats a rejection as a validation failure the model gets feedback about, then accepts the corrected answer', async () => {
    const provider = scripted(['{"orderId": "41", "amount": 50}', validRefundJson])
    const schema = asyncParse(async (v) => {
      if (!isRefund(v)) throw new Error('unknown order 41')
      return v
    })
    const gate = createGate({ providers: provider, outputSchema: schema, postDecide: strictOutputRules(3) })
    const result = await gate.run(ask('x'))
    expect(result.value).toEqual(validRefund)
    expect(result.attempts.map((a) => a.errorKind)).toEqual(['schema-fail', 'ok'])
    expect(provider.requests[1]?.messages.at(-1)?.content).toContain('unknown order 41')
  })

  it('never commits an answer whose async parse rejects: the agent run fails and the history stays empty', async () => {
    const agent = Agent.create({ provider: scripted(['{"orderId": "41"}']), name: 'a' })
      .outputSchema(asyncParse(() => Promise.reject(Object.create(null))))
      .build()
    await expect(agent.runTyped('x')).rejects.toMatchObject({ kind: 'schema-fail' })
    expect(agent.history).toEqual([])
  })

  it('a parse that never settles is ended by timeoutMs with kind timeout, within the bound', async () => {
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: asyncParse(() => new Promise(() => {})), timeoutMs: 40 })
    const started = Date.now()
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'timeout' })
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('a parse that answers a thenable (not a Promise) is adopted like one', async () => {
    const thenable = (value: unknown) => ({ then: (resolve: (v: unknown) => void) => resolve(value) })
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: { parse: (v: unknown) => thenable(v) as never } })
    expect((await gate.run(ask('x'))).value).toEqual(validRefund)
  })
})
