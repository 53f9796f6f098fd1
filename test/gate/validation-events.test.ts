import { describe, expect, it } from 'vitest'
import { createGate, strictOutputRules, type GateEventMap } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

describe('validation_failed event', () => {
  it('carries the failure of attempt 1 and fires once, before the decision of that attempt', async () => {
    const bad = '{"orderId": "42", "action": "refund", "amount": "USD 50"}'
    const gate = createGate({ providers: scripted([bad, validRefundJson]), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const order: string[] = []
    const payloads: GateEventMap['validation_failed'][] = []
    gate.on('validation_failed', (p) => {
      order.push(`validation_failed@${p.attempt}`)
      payloads.push(p)
    })
    gate.on('decision', (p) => order.push(`decision@${p.attempt}`))
    await gate.run(ask('x'))
    expect(payloads).toHaveLength(1)
    expect(payloads[0]).toMatchObject({ stage: 'schema-validate', attempt: 1, cumulativeRetries: 1, path: 'amount', rawOutput: bad })
    expect(payloads[0]?.message).toContain("'amount': expected number")
    expect(order).toEqual(['validation_failed@1', 'decision@1', 'decision@2'])
  })

  it('fires even when no rule would retry', async () => {
    const gate = createGate({ providers: scripted(['nope']), outputSchema: Refund })
    let fired = 0
    gate.on('validation_failed', () => fired++)
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'schema-fail' })
    expect(fired).toBe(1)
  })

  it('keeps running when a listener throws, and reports the listener error', async () => {
    const gate = createGate({ providers: scripted(['{}', validRefundJson]), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const reported: string[] = []
    gate.on('validation_failed', () => {
      throw new Error('listener bug')
    })
    gate.on('listener_error', (p) => reported.push(`${p.event}: ${(p.error as Error).message}`))
    const result = await gate.run(ask('x'))
    expect(result.attempts).toHaveLength(2)
    expect(reported).toEqual(['validation_failed: listener bug'])
  })

  it('stops delivering to a listener once it unsubscribes', async () => {
    const gate = createGate({ providers: scripted(['a', 'b']) })
    let count = 0
    const off = gate.on('attempt_start', () => count++)
    await gate.run(ask('x'))
    off()
    off()
    await gate.run(ask('y'))
    expect(count).toBe(1)
  })
})
