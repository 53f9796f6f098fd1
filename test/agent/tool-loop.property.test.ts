import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, isReliabilityFailFastError, tool, type ModelResponse, type ReliabilityFailFastError, type Usage } from '../../src/index.ts'
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
/** The agent's opt-in tool-retry options (none: the seed's outcomes). */
interface RetryOptions {
  readonly forcedToolReask?: boolean
  readonly toolGiveUpStops?: boolean
}
interface Scenario {
  readonly options: RetryOptions
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
  options: fc.constantFrom<RetryOptions>({}, { forcedToolReask: true }, { toolGiveUpStops: true }, { forcedToolReask: true, toolGiveUpStops: true }),
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

/**
 * How one planned call must settle: an outcome and its retries (`answers`: a prose reply that
 * stands as the run's answer), or the fail-fast kind that stops the run.
 */
type Expected =
  | { readonly outcome: ToolRetryOutcome; readonly retryCount: number; readonly answers?: true }
  | { readonly fails: 'tool-call-abandoned' | 'schema-stuck-loop' }

/**
 * What the Imperal loop must reach for one planned call: retries within the budget, repeats
 * included (`redundant` counts against it); prose is `llm_gave_up` and stands as the answer. With
 * `forcedToolReask`, prose gets one re-ask pinned to the tool (beyond the budget); with
 * `toolGiveUpStops`, prose (or another tool after the re-ask) stops the run, and so does a retry
 * repeating the rejected arguments of the attempt before it.
 */
function expected(call: PlannedCall, budget: number, options: RetryOptions): Expected {
  if (call.tool === 'ghost' || call.firstValid) return { outcome: 'no_retry', retryCount: 0 }
  const stops = options.toolGiveUpStops === true
  let previous = 'zero'
  let forced = false
  let next = 0
  for (let retry = 0; ; ) {
    if (retry >= budget) return { outcome: 'exhausted', retryCount: retry }
    let reply = call.retries[next++] ?? 'text'
    retry++
    let reasked = false
    if (reply === 'text' && options.forcedToolReask === true && !forced) {
      forced = true
      reasked = true
      reply = call.retries[next++] ?? 'text'
      retry++
    }
    if (reply === 'text') return stops ? { fails: 'tool-call-abandoned' } : { outcome: 'llm_gave_up', retryCount: retry, answers: true }
    if (reply === 'switch') return reasked && stops ? { fails: 'tool-call-abandoned' } : { outcome: 'llm_gave_up', retryCount: retry }
    if (reply === 'valid') return { outcome: 'success', retryCount: retry }
    if (previous === 'bad' && stops) return { fails: 'schema-stuck-loop' }
    previous = 'bad'
  }
}

/** Every planned call's expectation in order, up to the first that stops the run or the turn whose prose answer stands. */
function plan(s: Scenario): { readonly settled: Expected[]; readonly fails: string | undefined; readonly turns: number; readonly answered: boolean } {
  const settled: Expected[] = []
  let turns = 0
  for (const turn of s.turns) {
    turns++
    let answered = false
    for (const call of turn) {
      const e = expected(call, s.budget, s.options)
      if ('fails' in e) return { settled, fails: e.fails, turns, answered: false }
      settled.push(e)
      if (e.answers === true) answered = true
    }
    if (answered) return { settled, fails: undefined, turns, answered: true }
  }
  return { settled, fails: undefined, turns, answered: false }
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
  // The no-progress ladder (on by default) would rightly nudge and withhold the identical calls this
  // generator repeats across turns; its own properties live in test/no-progress. Off here, so the
  // oracle is the Imperal retry loop alone.
  const agent = Agent.create({ provider, maxToolRetries: s.budget, maxIterations: 10, noProgress: false, ...s.options })
    .tools(tools)
    .reliability({ priceUsage })
    .build()
  const outcome = await agent.runDetailed('go').then(
    (result) => ({ result, error: undefined }),
    (error: unknown) => ({ result: undefined, error: error as ReliabilityFailFastError }),
  )
  return { provider, billed, ...outcome }
}

describe('Agent tool loop properties', () => {
  it('records exactly one functionsCalled entry per logical tool call, with the outcome the Imperal loop defines', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { result, error } = await runScenario(s)
        const { settled, fails, answered } = plan(s)
        if (fails !== undefined) {
          expect(isReliabilityFailFastError(error)).toBe(true)
          expect(error?.kind).toBe(fails)
          return
        }
        const calls = s.turns.flat()
        expect(result?.functionsCalled).toHaveLength(settled.length)
        result?.functionsCalled.forEach((entry, i) => {
          expect(entry.name).toBe((calls[i] as PlannedCall).tool)
          const { outcome, retryCount } = settled[i] as { outcome: ToolRetryOutcome; retryCount: number }
          expect({ outcome: entry.outcome, retryCount: entry.retryCount }).toEqual({ outcome, retryCount })
        })
        expect(result?.text).toBe(answered ? 'I give up.' : 'Final answer.')
      }),
      { numRuns: 1000 },
    )
  })

  it('never retries a call beyond its budget and the one forced re-ask, and makes exactly turns + retries (+ 1 unless a prose answer stands) model calls', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { provider, result, error } = await runScenario(s)
        if (result === undefined) {
          expect(error?.attempts).toHaveLength(provider.calls)
          return
        }
        const reask = s.options.forcedToolReask === true ? 1 : 0
        for (const entry of result.functionsCalled) expect(entry.retryCount).toBeLessThanOrEqual(s.budget + reask)
        const retries = result.functionsCalled.reduce((sum, e) => sum + e.retryCount, 0)
        const { turns, answered } = plan(s)
        expect(provider.calls).toBe(turns + retries + (answered ? 0 : 1))
        expect(result.attempts).toHaveLength(provider.calls)
      }),
      { numRuns: 1000 },
    )
  })

  it('reports a cumulative cost equal to the sum over all attempts and over everything the provider billed', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const { billed, result, error } = await runScenario(s)
        const spent = result ?? (error as ReliabilityFailFastError)
        const attemptsSum = spent.attempts.reduce((sum, a) => sum + a.costUsd, 0)
        const billedSum = billed.reduce((sum, u) => sum + priceUsage(u), 0)
        expect(spent.costUsd).toBe(attemptsSum)
        expect(spent.costUsd).toBe(billedSum)
        expect(spent.usage.inputTokens).toBe(billed.reduce((sum, u) => sum + u.inputTokens, 0))
      }),
      { numRuns: 1000 },
    )
  })
})
