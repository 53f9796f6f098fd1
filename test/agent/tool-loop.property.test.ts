import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, tool, type ModelResponse, type Usage } from '../../src/index.ts'
import type { ToolRetryOutcome } from '../../src/agent/index.ts'
import type { ToolCall } from '../../src/model/index.ts'
import { scripted, type ScriptedStepFunction } from '../../src/providers/index.ts'

type Reply = 'valid' | 'invalid' | 'text' | 'switch'
interface PlannedCall {
  readonly tool: 'alpha' | 'beta' | 'ghost'
  readonly firstValid: boolean
  /** What the model answers to each retry of this call, in order. */
  readonly retries: readonly Reply[]
}
interface Scenario {
  readonly budget: number
  readonly turns: readonly (readonly PlannedCall[])[]
  readonly tokens: readonly number[]
}

const Input = Type.Object({ n: Type.Integer() }, { additionalProperties: false })
const tools = [
  tool({ name: 'alpha', description: '', input: Input, execute: ({ n }) => n + 1 }),
  tool({ name: 'beta', description: '', input: Input, execute: ({ n }) => n * 2 }),
]
const priceUsage = (u: Usage) => (u.inputTokens + u.outputTokens) / 1024

const scenario: fc.Arbitrary<Scenario> = fc.record({
  budget: fc.integer({ min: 0, max: 3 }),
  turns: fc.array(
    fc.array(
      fc.record({
        tool: fc.constantFrom('alpha', 'beta', 'ghost'),
        firstValid: fc.boolean(),
        retries: fc.array(fc.constantFrom<Reply>('valid', 'invalid', 'invalid', 'text', 'switch'), { minLength: 3, maxLength: 3 }),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    { minLength: 0, maxLength: 3 },
  ),
  tokens: fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 8 }),
})

/** The outcome and retries the Imperal loop must reach for one planned call. */
function expected(call: PlannedCall, budget: number): { outcome: ToolRetryOutcome; retryCount: number } {
  if (call.tool === 'ghost' || call.firstValid) return { outcome: 'no_retry', retryCount: 0 }
  for (let r = 0; ; r++) {
    if (r >= budget) return { outcome: 'exhausted', retryCount: r }
    const reply = call.retries[r]
    if (reply === 'valid') return { outcome: 'success', retryCount: r + 1 }
    if (reply === 'text' || reply === 'switch') return { outcome: 'llm_gave_up', retryCount: r + 1 }
  }
}

/** A scripted model that plays the scenario, whatever order the agent asks in, and records what it billed. */
function play(s: Scenario) {
  const planned = new Map<string, PlannedCall>()
  const retriesAsked = new Map<string, number>()
  const billed: Usage[] = []
  let turnsAsked = 0
  const respond = (response: Partial<ModelResponse>): Partial<ModelResponse> => {
    const tokens = s.tokens[billed.length % s.tokens.length] ?? 0
    const usage = { inputTokens: tokens, outputTokens: billed.length }
    billed.push(usage)
    return { ...response, usage }
  }
  const step: ScriptedStepFunction = (request) => {
    const last = request.messages.at(-1)
    if (last?.ephemeral === true && last.role === 'tool') {
      const original = (last.toolCallId ?? '').split('~')[0] ?? ''
      const plan = planned.get(original)
      const r = retriesAsked.get(original) ?? 0
      retriesAsked.set(original, r + 1)
      const reply = plan?.retries[r] ?? 'text'
      const id = `${original}~${r + 1}`
      if (reply === 'text') return respond({ content: 'I give up.' })
      if (reply === 'switch') return respond({ toolCalls: [{ id, name: plan?.tool === 'alpha' ? 'beta' : 'alpha', args: { n: 1 } }] })
      return respond({ toolCalls: [{ id, name: plan?.tool ?? 'alpha', args: { n: reply === 'valid' ? 1 : 'bad' } }] })
    }
    const turn = s.turns[turnsAsked]
    turnsAsked++
    if (turn === undefined) return respond({ content: 'Final answer.' })
    const toolCalls: ToolCall[] = turn.map((c, i) => {
      const id = `t${turnsAsked}c${i}`
      planned.set(id, c)
      return { id, name: c.tool, args: { n: c.firstValid ? 0 : 'zero' } }
    })
    return respond({ toolCalls })
  }
  return { provider: scripted(Array.from({ length: 64 }, () => step)), billed }
}

async function runScenario(s: Scenario) {
  const { provider, billed } = play(s)
  const agent = Agent.create({ provider, maxToolRetries: s.budget, maxIterations: 10 }).tools(tools).reliability({ priceUsage }).build()
  const result = await agent.runDetailed('go')
  return { provider, billed, result }
}

describe('Agent tool loop properties', () => {
  it('records exactly one functionsCalled entry per logical tool call, with the outcome the Imperal loop defines', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { result } = await runScenario(s)
        const calls = s.turns.flat()
        expect(result.functionsCalled).toHaveLength(calls.length)
        result.functionsCalled.forEach((entry, i) => {
          const plan = calls[i] as PlannedCall
          expect(entry.name).toBe(plan.tool)
          expect({ outcome: entry.outcome, retryCount: entry.retryCount }).toEqual(expected(plan, s.budget))
        })
      }),
      { numRuns: 1000 },
    )
  })

  it('never retries a call beyond its budget, and makes exactly turns + retries + 1 model calls', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { provider, result } = await runScenario(s)
        for (const entry of result.functionsCalled) expect(entry.retryCount).toBeLessThanOrEqual(s.budget)
        const retries = result.functionsCalled.reduce((sum, e) => sum + e.retryCount, 0)
        expect(provider.calls).toBe(s.turns.length + retries + 1)
        expect(result.attempts).toHaveLength(provider.calls)
      }),
      { numRuns: 1000 },
    )
  })

  it('reports a cumulative cost equal to the sum over all attempts and over everything the provider billed', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { billed, result } = await runScenario(s)
        const attemptsSum = result.attempts.reduce((sum, a) => sum + a.costUsd, 0)
        const billedSum = billed.reduce((sum, u) => sum + priceUsage(u), 0)
        expect(result.costUsd).toBe(attemptsSum)
        expect(result.costUsd).toBe(billedSum)
        expect(result.usage.inputTokens).toBe(billed.reduce((sum, u) => sum + u.inputTokens, 0))
      }),
      { numRuns: 1000 },
    )
  })
})
