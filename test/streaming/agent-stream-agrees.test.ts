import { describe, expect, it } from 'vitest'
import { Agent, isReliabilityFailFastError, strictOutputRules } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { Refund, validRefundJson } from '../support/schemas.ts'

const invalid = '{"orderId": "42", "action": "maybe", "amount": 50}'
// $1 per token in and out: any attempt spends far more than the budget below.
const pricing = { m: { input: 1_000_000, output: 1_000_000 } }

/** An agent whose every answer is refused by its schema, under a run cost budget of $0.01. */
function budgeted(onExceed: 'halt' | 'warn' = 'halt') {
  const provider = scripted([invalid, validRefundJson])
  const agent = Agent.create({ provider, model: 'm', name: 'billing' })
    .outputSchema(Refund)
    .reliability({ pricing, postDecide: strictOutputRules(4) })
    .costBudget({ usd: 0.01, onExceed })
    .build()
  return { agent, provider }
}

describe('agent.stream and agent.runDetailed agree', () => {
  it('stop at the same attempt when the run cost budget is spent', async () => {
    const ran = budgeted()
    const runError = await ran.agent.runDetailed('refund #42').catch((e: unknown) => e)
    const streamed = budgeted()
    const stream = streamed.agent.stream('refund #42', { mode: 'buffer' })
    const streamError = await stream.result.catch((e: unknown) => e)

    expect(isReliabilityFailFastError(runError) && runError.kind).toBe('budget-exceeded')
    expect(isReliabilityFailFastError(streamError) && streamError.kind).toBe('budget-exceeded')
    expect(streamed.provider.calls).toBe(ran.provider.calls)
    expect(streamed.provider.calls).toBe(1)
    expect(streamed.agent.history).toEqual([])
  })

  it('both warn once and go on under onExceed: warn', async () => {
    for (const mode of ['run', 'stream'] as const) {
      const { agent, provider } = budgeted('warn')
      const warned: string[] = []
      agent.on('budget_exceeded', (e) => warned.push(e.action))
      const value = mode === 'run' ? (await agent.runDetailed('refund #42')).value : (await agent.stream('refund #42', { mode: 'buffer' }).result).value
      expect(value).toMatchObject({ orderId: '42' })
      expect(warned).toEqual(['warn'])
      expect(provider.calls).toBe(2)
    }
  })
})
