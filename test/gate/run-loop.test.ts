import { describe, expect, it } from 'vitest'
import { createGate, strictOutputRules, type ReliabilityFailFastError, type ReliabilityRule } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

const stop: ReliabilityRule = { when: () => true, then: 'fail-fast', kind: 'kill-switch' }
// A `when` answering with a promise, as an async rule does.
const later = (answer: boolean): ReliabilityRule['when'] => (() => Promise.resolve(answer)) as unknown as ReliabilityRule['when']

describe('the run loop', () => {
  it('gives every run its own result and attempt log', async () => {
    const gate = createGate({ providers: scripted([validRefundJson, validRefundJson]), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const request = ask('refund #42')
    const first = await gate.run(request)
    const second = await gate.run(request)
    expect(second).not.toBe(first)
    expect(second.attempts).not.toBe(first.attempts)
    expect(second.lastAttempt).not.toBe(first.lastAttempt)
    expect(second.runId).not.toBe(first.runId)
    expect(first.attempts).toEqual([first.lastAttempt])
    expect(second.attempts).toEqual([second.lastAttempt])
  })

  it('logs every attempt of a retried run in order, the accepted one last', async () => {
    const gate = createGate({ providers: scripted(['not json {', '{"orderId": 1}', validRefundJson]), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const result = await gate.run(ask('x'))
    expect(result.attempts.map((a) => [a.attempt, a.status, a.decision])).toEqual([
      [1, 'parse_error', 'retry'],
      [2, 'schema_error', 'retry'],
      [3, 'success', 'ok'],
    ])
    expect(result.lastAttempt).toBe(result.attempts[2])
  })

  it('gives a run stopped before its first attempt an empty attempt log of its own', async () => {
    const gate = createGate({ providers: scripted([validRefundJson]), preCheck: [stop] })
    const first = (await gate.run(ask('x')).catch((e: unknown) => e)) as ReliabilityFailFastError
    const second = (await gate.run(ask('x')).catch((e: unknown) => e)) as ReliabilityFailFastError
    expect(first).toMatchObject({ kind: 'kill-switch', phase: 'pre-check', attempts: [] })
    expect(second.attempts).toEqual([])
    expect(second.attempts).not.toBe(first.attempts)
  })

  it('stops the run when a PreCheck rule answers with a promise', async () => {
    const provider = scripted([validRefundJson])
    const gate = createGate({ providers: provider, preCheck: [{ ...stop, when: later(true) }] })
    await expect(gate.run(ask('x'))).rejects.toMatchObject({ kind: 'kill-switch', phase: 'pre-check' })
    expect(provider.calls).toBe(0)
  })

  it('acts on a PostDecide rule that answers with a promise', async () => {
    const rule: ReliabilityRule = { when: later(true), then: 'ok', kind: 'accepted-later' }
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: Refund, postDecide: [rule] })
    const result = await gate.run(ask('x'))
    expect(result.lastAttempt).toMatchObject({ decision: 'ok', ruleKind: 'accepted-later' })
  })

  it('logs the kind of the rule that accepted an answer, and the plain ok when none did', async () => {
    const accept: ReliabilityRule = { when: () => true, then: 'ok', kind: 'always-fine', label: 'fine' }
    const judged = await createGate({ providers: scripted([validRefundJson]), postDecide: [accept] }).run(ask('x'))
    expect(judged.lastAttempt).toMatchObject({ decision: 'ok', ruleKind: 'always-fine', ruleLabel: 'fine' })
    const plain = await createGate({ providers: scripted([validRefundJson]) }).run(ask('x'))
    expect(plain.lastAttempt).toMatchObject({ decision: 'ok', ruleKind: 'ok', ruleLabel: undefined })
  })

  it('rejects the stream of a run stopped by PreCheck, never throwing at the caller', async () => {
    const gate = createGate({ providers: scripted([validRefundJson]), preCheck: [stop] })
    const stream = gate.stream(ask('x'))
    await expect(stream.result).rejects.toMatchObject({ kind: 'kill-switch', phase: 'pre-check' })
  })
})
