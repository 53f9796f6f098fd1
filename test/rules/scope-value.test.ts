import { afterEach, describe, expect, it, vi } from 'vitest'
import { Agent, createGate, strictOutputRules, type ReliabilityRule } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund } from '../support/schemas.ts'

afterEach(() => {
  vi.restoreAllMocks()
})

/** A business rule on the validated value: refunds above $100 are refused. */
const atMost100: ReliabilityRule = {
  kind: 'refund-too-large',
  when: (s) => s.errorKind === 'ok' && typeof s.value === 'object' && s.value !== null && (s.value as { amount: number }).amount > 100,
  then: 'fail-fast',
}

describe('what a PostDecide rule sees', () => {
  it('reads the validated value of a fenced answer, so a business rule cannot be skipped by the answer’s form', async () => {
    const fenced = 'Sure:\n```json\n{"orderId": "42", "action": "refund", "amount": 500}\n```'
    const gate = createGate({ providers: scripted([fenced]), outputSchema: Refund, postDecide: [atMost100, ...strictOutputRules(2)] })
    await expect(gate.run(ask('refund'))).rejects.toMatchObject({ kind: 'refund-too-large' })
  })

  it('lets a value within the rule through, and sees nothing on an answer that failed validation', async () => {
    const seen: unknown[] = []
    const spy: ReliabilityRule = { kind: 'spy', when: (s) => (seen.push(s.value), false), then: 'ok' }
    const gate = createGate({
      providers: scripted(['{"amount": "x"}', '{"orderId": "1", "action": "refund", "amount": 20}']),
      outputSchema: Refund,
      postDecide: [spy, ...strictOutputRules(2)],
    })
    await expect(gate.run(ask('refund'))).resolves.toMatchObject({ value: { amount: 20 } })
    expect(seen).toEqual([undefined, { orderId: '1', action: 'refund', amount: 20 }])
  })

  it('a when that throws with nobody listening is written once per rule as a process warning, not skipped without a word', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const broken: ReliabilityRule = {
      kind: 'broken-rule',
      when: () => {
        throw new Error('boom\nsecond line')
      },
      then: 'fail-fast',
    }
    const gate = createGate({
      providers: scripted(['{"orderId": "1", "action": "refund", "amount": 1}', '{"orderId": "1", "action": "refund", "amount": 1}']),
      outputSchema: Refund,
      postDecide: [broken],
    })
    await gate.run(ask('a'))
    await gate.run(ask('b'))
    const lines = warn.mock.calls.filter((c) => String(c[0]).includes('broken-rule'))
    expect(lines).toHaveLength(1)
    expect(String(lines[0]?.[0])).not.toContain('\n')
    expect(lines[0]?.[1]).toMatchObject({ code: 'RELIABILITY_GATE_RULE_ERROR' })
  })

  it('an agent with a logger writes a broken rule to it, once per rule', async () => {
    const lines: string[] = []
    const logger = { debug: () => {}, info: () => {}, warn: (line: string) => lines.push(line), error: () => {} }
    const broken: ReliabilityRule = {
      kind: 'broken-rule',
      when: () => {
        throw new Error('boom')
      },
      then: 'fail-fast',
    }
    const answer = '{"orderId": "1", "action": "refund", "amount": 1}'
    const agent = Agent.create({ provider: scripted([answer, answer]), name: 'billing', logger, logFormat: 'line' })
      .outputSchema(Refund)
      .reliability({ postDecide: [broken] })
      .build()
    await agent.runTyped('a')
    await agent.runTyped('b')
    expect(lines.filter((l) => l.startsWith('rule_error'))).toEqual([expect.stringContaining('rule="broken-rule" where=when')])
  })
})
