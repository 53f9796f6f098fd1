import { describe, expect, it } from 'vitest'
import type { ProviderCall } from './support/counting-provider.ts'
import { attemptOf, labelOf } from './support/demo-agent.ts'
import { ALL_HOLD, killPointName, killPointOf, type Reference, type RunTrace, verdictOf } from './support/demo-sweep.ts'

// The sweep's judge must be able to fail: each property is broken once here, on a hand-made trace.
const steps = ['attempt:1:1', 'tool:1:c1', 'attempt:2:1', 'attempt:2:2', 'session-base', 'session-commit']
const call = (runId: string, label: string, promptTokens: number, tail = label): ProviderCall => ({
  runId,
  label,
  promptTokens,
  messages: [{ role: 'user', content: tail }],
})
const reference: Reference = {
  runId: 'ref-1',
  steps,
  result: { value: { orderId: '42', action: 'refund', amount: 50 }, costUsd: 0.0006, calls: [['c1', 'ok']] },
  calls: [call('ref-1', '1:1', 100), call('ref-1', '2:1', 200), call('ref-1', '2:2', 300)],
  refunds: { 'ref-1:1:c1': 'o-1' },
  executions: { 'ref-1:1:c1': '1' },
  spentUsd: 0.0006,
  session: { messages: [{ role: 'user', content: 'hi' }], version: 1 },
}
/** The trace of `sweep-1` that matches the reference, killed where nothing is in flight. */
const clean = (): RunTrace => ({
  result: reference.result,
  calls: reference.calls.map((c) => ({ ...c, runId: 'sweep-1' })),
  refunds: { 'sweep-1:1:c1': 'o-1' },
  executions: { 'sweep-1:1:c1': '1' },
  spentUsd: 0.0006,
  session: reference.session,
})
const BEFORE_FIRST = 0
const INSIDE_RETRY = 3 * 3 + 1
const INSIDE_TOOL = 3 * 1 + 1

describe('The demo sweep verdict', () => {
  it('holds for a run that matches its reference', () => {
    expect(verdictOf(reference, 'sweep-1', BEFORE_FIRST, clean())).toMatchObject({ point: 'before attempt', rebilled: 0, duplicateEffects: 0, holds: ALL_HOLD })
  })

  it('takes the attempt in flight at the kill as called twice and charged once more', () => {
    const trace = { ...clean(), calls: [...clean().calls, call('sweep-1', '2:2', 300)], spentUsd: 0.0009 }
    const verdict = verdictOf(reference, 'sweep-1', INSIDE_RETRY, trace)
    expect(verdict).toMatchObject({ point: 'inside attempt', rebilled: 0, holds: ALL_HOLD })
    expect(verdict.budgetDeltaUsd).toBeCloseTo(0.0003, 12)
  })

  it('counts a finished attempt called again as re-billed', () => {
    const trace = { ...clean(), calls: [...clean().calls, call('sweep-1', '1:1', 100)], spentUsd: 0.0007 }
    const verdict = verdictOf(reference, 'sweep-1', BEFORE_FIRST, trace)
    expect(verdict.rebilled).toBe(1)
    expect(verdict.holds).toMatchObject({ finishedAttemptsOnce: false, budgetIsOwnCostPlusInFlight: false })
  })

  it('fails a retry whose feedback differs from the uninterrupted run’s', () => {
    const trace = { ...clean(), calls: clean().calls.map((c) => (c.label === '2:2' ? call('sweep-1', '2:2', 300, 'other feedback') : c)) }
    expect(verdictOf(reference, 'sweep-1', BEFORE_FIRST, trace).holds.sameRequests).toBe(false)
  })

  it('fails a refund applied under a second key, and a tool run twice that was not in flight', () => {
    const twice = { ...clean(), refunds: { 'sweep-1:1:c1': 'o-1', 'sweep-1:1:c1#2': 'o-1' } }
    expect(verdictOf(reference, 'sweep-1', BEFORE_FIRST, twice)).toMatchObject({ duplicateEffects: 1, holds: { oneEffectPerKey: false } })
    const rerun = { ...clean(), executions: { 'sweep-1:1:c1': '2' } }
    expect(verdictOf(reference, 'sweep-1', BEFORE_FIRST, rerun).holds.executionsOncePlusInFlight).toBe(false)
    expect(verdictOf(reference, 'sweep-1', INSIDE_TOOL, rerun)).toMatchObject({ point: 'inside tool', holds: ALL_HOLD })
  })

  it('fails a history holding the exchange twice, and a budget charged twice', () => {
    const history = { ...clean(), session: { messages: [...reference.session.messages, ...reference.session.messages], version: 2 } }
    expect(verdictOf(reference, 'sweep-1', BEFORE_FIRST, history).holds.historyOnce).toBe(false)
    expect(verdictOf(reference, 'sweep-1', BEFORE_FIRST, { ...clean(), spentUsd: 0.0012 }).holds.budgetIsOwnCostPlusInFlight).toBe(false)
  })

  it('kills nine consecutive seeds at every position of attempt, tool and session steps, eighteen at every position of each step kind', () => {
    const points = Array.from({ length: 18 }, (_, i) => killPointName(steps, killPointOf(i + 1, steps)))
    for (const position of ['before', 'inside', 'after'])
      for (const kind of ['attempt', 'tool', 'session-']) expect(points.slice(0, 9).some((p) => p.startsWith(`${position} ${kind}`))).toBe(true)
    // Eighteen seeds reach every position of each session step too (the group's step alternates).
    for (const position of ['before', 'inside', 'after']) for (const kind of ['session-base', 'session-commit']) expect(points).toContain(`${position} ${kind}`)
  })

  it('labels a request by its model turn and its attempt within the turn', () => {
    const toolTurn = { role: 'assistant', tool_calls: [{}] }
    expect(labelOf([{ role: 'user' }])).toBe('1:1')
    expect(labelOf([{ role: 'user' }, toolTurn, { role: 'tool' }])).toBe('2:1')
    expect(labelOf([{ role: 'user' }, toolTurn, { role: 'tool' }, { role: 'assistant' }, { role: 'user' }])).toBe('2:2')
    expect(attemptOf([{ role: 'user' }, { role: 'assistant' }, { role: 'user' }, { role: 'assistant' }, { role: 'user' }])).toBe(3)
  })
})
