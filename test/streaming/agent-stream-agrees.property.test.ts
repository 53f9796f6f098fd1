import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import {
  Agent,
  guard,
  isReliabilityFailFastError,
  ProviderError,
  retryTransient,
  strictOutputRules,
  tool,
  type AgentStreamEvent,
  type RunResult,
  type StreamMode,
  type Usage,
} from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { collect } from '../support/collect-stream.ts'

const Verdict = Type.Object({ ok: Type.Boolean() }, { additionalProperties: false })
// Dyadic prices keep every sum exact, so both runs' costs compare with toEqual.
const priceUsage = (u: Usage) => u.inputTokens / 1024

type StepKind =
  | 'valid'
  | 'invalid'
  | 'prose'
  | 'tool'
  | 'bad-tool'
  | 'guarded-tool'
  | '503'
  | 'truncated'
  | 'refusal'
  | 'two-tools'
  | 'unknown-tool'
  | 'throw-tool'
  | 'text-tool'
  | 'repeat-id'
interface Step {
  readonly kind: StepKind
  readonly tokens: number
  readonly n: number
}

const stepArb: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom<StepKind>(
    'valid',
    'invalid',
    'prose',
    'tool',
    'bad-tool',
    'guarded-tool',
    '503',
    'truncated',
    'refusal',
    'two-tools',
    'unknown-tool',
    'throw-tool',
    'text-tool',
    'repeat-id',
  ),
  tokens: fc.integer({ min: 1, max: 512 }),
  n: fc.integer({ min: 1, max: 1000 }),
})

/** The agent's options a case draws: tools, budget, output fallback, caps and retries. */
interface Options {
  readonly tools: boolean
  readonly budget: { readonly usd: number; readonly onExceed: 'halt' | 'warn' } | undefined
  readonly fallback: 'none' | 'canned' | 'function'
  readonly fallbackOnStops: boolean
  readonly maxIterations: number
  readonly maxAttempts: number
  readonly maxToolRetries: number
  readonly retry503: boolean
  readonly forced: boolean
  readonly stops: boolean
  readonly retryRefusal: boolean
}

const optionsArb: fc.Arbitrary<Options> = fc.record({
  tools: fc.boolean(),
  budget: fc.option(fc.record({ usd: fc.integer({ min: 1, max: 3072 }).map((t) => t / 1024), onExceed: fc.constantFrom<'halt' | 'warn'>('halt', 'warn') }), {
    nil: undefined,
  }),
  fallback: fc.constantFrom<Options['fallback']>('none', 'canned', 'function'),
  fallbackOnStops: fc.boolean(),
  maxIterations: fc.integer({ min: 1, max: 4 }),
  maxAttempts: fc.integer({ min: 1, max: 4 }),
  maxToolRetries: fc.integer({ min: 0, max: 2 }),
  retry503: fc.boolean(),
  forced: fc.boolean(),
  stops: fc.boolean(),
  retryRefusal: fc.boolean(),
})

const toStep = (s: Step): ScriptedStep => {
  const usage = { inputTokens: s.tokens, outputTokens: 0 }
  switch (s.kind) {
    case 'valid':
      return { content: `{"ok": ${s.n % 2 === 0}}`, usage }
    case 'invalid':
      // Distinct messages, so retries are not cut short as a stuck loop.
      return { content: `{"ok": "no ${s.n}"}`, usage }
    case 'prose':
      return { content: `I would rather explain it in words (${s.n}).`, usage }
    case 'tool':
      return { toolCalls: [{ id: `c${s.n}`, name: 'echo', args: { n: s.n } }], usage }
    case 'bad-tool':
      return { toolCalls: [{ id: `c${s.n}`, name: 'echo', args: { n: `x${s.n}` } }], usage }
    case 'guarded-tool':
      return { toolCalls: [{ id: `c${s.n}`, name: 'echo', args: { n: 13 } }], usage }
    case '503':
      return new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })
    case 'truncated':
      return { content: '{"ok": tr', usage, stopReason: 'max_tokens' }
    case 'refusal':
      return { content: 'I cannot help with that.', usage, stopReason: 'content_filter' }
    case 'two-tools':
      return {
        toolCalls: [
          { id: `a${s.n}`, name: 'echo', args: { n: s.n } },
          { id: `b${s.n}`, name: 'echo', args: { n: `y${s.n}` } },
        ],
        usage,
      }
    case 'unknown-tool':
      return { toolCalls: [{ id: `c${s.n}`, name: 'nope', args: {} }], usage }
    case 'throw-tool':
      return { toolCalls: [{ id: `c${s.n}`, name: 'echo', args: { n: 7 } }], usage }
    case 'text-tool':
      return { content: 'Let me check.', toolCalls: [{ id: `c${s.n}`, name: 'echo', args: { n: s.n } }], usage }
    case 'repeat-id':
      return {
        toolCalls: [
          { id: 'c0', name: 'echo', args: { n: s.n } },
          { id: 'c0', name: 'echo', args: { n: s.n + 1 } },
        ],
        usage,
      }
  }
}

/** A fresh agent for `options` over a fresh provider replaying `steps` (then valid answers). */
function build(options: Options, steps: readonly Step[]) {
  const provider = scripted([...steps.map(toStep), ...Array.from({ length: 30 }, () => '{"ok": true}')])
  const executed: number[] = []
  const echo = tool({
    name: 'echo',
    description: 'Echoes a number',
    input: Type.Object({ n: Type.Integer() }, { additionalProperties: false }),
    guards: [guard<{ n: number }>('not-13', ({ n }) => (n === 13 ? { ok: false, reason: '13 is refused' } : { ok: true }))],
    execute: ({ n }) => {
      if (n === 7) throw new Error('seven breaks it')
      executed.push(n)
      return { n }
    },
  })
  let builder = Agent.create({
    provider,
    maxIterations: options.maxIterations,
    maxToolRetries: options.maxToolRetries,
    forcedToolReask: options.forced,
    toolGiveUpStops: options.stops,
  })
    .outputSchema(Verdict)
    .reliability({
      priceUsage,
      postDecide: [
        ...(options.retry503 ? [retryTransient({ backoff: () => 0 })] : []),
        ...(options.retryRefusal
          ? [{ when: (s: { errorKind: string; attempt: number }) => s.errorKind === 'refusal' && s.attempt < 3, then: 'retry' as const, kind: 'retry-refusal' }]
          : []),
        ...strictOutputRules(options.maxAttempts),
      ],
    })
  if (options.tools) builder = builder.tool(echo)
  if (options.budget !== undefined) builder = builder.costBudget(options.budget)
  const alsoOn = options.fallbackOnStops ? { alsoOn: ['budget-exceeded', 'max-iterations', 'http-5xx'] } : {}
  if (options.fallback === 'canned') builder = builder.outputFallback({ canned: { ok: false }, ...alsoOn })
  if (options.fallback === 'function') builder = builder.outputFallback({ fallback: () => ({ ok: true }), ...alsoOn })
  return { agent: builder.build(), provider, executed }
}

/** What a run ended with, as both ways of running must agree on it. */
function outcomeOf(settled: { ok: true; result: RunResult<unknown> } | { ok: false; error: unknown }) {
  if (!settled.ok) {
    const error = settled.error
    if (!isReliabilityFailFastError(error)) return { kind: `untyped: ${String(error)}` }
    return { kind: error.kind, attempts: error.attempts.map((a) => [a.status, a.costUsd]), costUsd: error.costUsd, usage: error.usage }
  }
  const r = settled.result
  return {
    kind: 'ok',
    value: r.value,
    text: r.text,
    functionsCalled: r.functionsCalled.map((c) => [c.name, c.status, c.args, c.outcome, c.retryCount, c.argsTried]),
    attempts: r.attempts.map((a) => [a.status, a.costUsd]),
    usage: r.usage,
    costUsd: r.costUsd,
    turns: r.turns,
    exchange: r.exchange,
    outputFallback: r.outputFallback,
    provider: r.provider,
  }
}

/**
 * The events of an accepted stream say what the result says: the last is the result, numbered with
 * the run's last attempt, each text names an attempt of the run, and the text delivered is the
 * answer's (in passthrough, the answer attempt's chunks; an output fallback comes after text the
 * model streamed, which passthrough cannot take back).
 */
function expectEventsOf(events: readonly AgentStreamEvent<unknown>[], r: RunResult<unknown>, mode: StreamMode): void {
  expect(events.at(-1)).toMatchObject({ type: 'result', attempt: r.attempts.length })
  const texts = events.flatMap((e) => (e.type === 'text' ? [e] : []))
  for (const t of texts) expect(t.attempt >= 1 && t.attempt <= r.attempts.length).toBe(true)
  const delivered = (mode === 'buffer' ? texts : texts.filter((t) => t.attempt === r.attempts.length)).map((t) => t.text).join('')
  if (mode === 'buffer' || r.outputFallback === undefined) expect(delivered).toBe(r.text)
}

const settle = (p: Promise<RunResult<unknown>>) =>
  p.then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  )

describe('agent.stream and agent.runDetailed (property)', () => {
  it('agree on the outcome, value, tool calls, attempts, cost and stored history for any script and option set', async () => {
    const seen = new Set<string>()
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 10 }), optionsArb, fc.boolean(), async (steps, options, passthrough) => {
        // Passthrough cannot take back text it delivered: it agrees with run while no answer with text is rejected.
        const rejectsText = steps.some((s) => ['invalid', 'prose', 'truncated', 'refusal'].includes(s.kind))
        const mode: StreamMode = passthrough && !rejectsText ? 'passthrough' : 'buffer'
        const ran = build(options, steps)
        const streamed = build(options, steps)
        const run = outcomeOf(await settle(ran.agent.runDetailed('go')))
        const stream = streamed.agent.stream('go', { mode })
        const settledStream = await settle(stream.result)
        const result = outcomeOf(settledStream)
        if (settledStream.ok) expectEventsOf(await collect(stream), settledStream.result, mode)

        expect(result).toEqual(run)
        expect(streamed.provider.calls).toBe(ran.provider.calls)
        expect(streamed.provider.requests.map((r) => r.messages)).toEqual(ran.provider.requests.map((r) => r.messages))
        expect(streamed.executed).toEqual(ran.executed)
        expect(streamed.agent.history).toEqual(ran.agent.history)
        if (result.kind !== 'ok') expect(streamed.agent.history).toEqual([])
        seen.add(`${mode}:${result.kind}`)
        if ('outputFallback' in result && result.outputFallback !== undefined) seen.add('output-fallback')
        if ('functionsCalled' in result) for (const [, status] of result.functionsCalled ?? []) seen.add(`tool:${status}`)
      }),
      { numRuns: 400 },
    )
    // The cases reached what the property is about: tools, guards, budgets, caps and the fallback, in both modes.
    for (const reached of [
      'buffer:ok',
      'passthrough:ok',
      'buffer:budget-exceeded',
      'buffer:max-iterations',
      'buffer:refusal',
      'output-fallback',
      'tool:ok',
      'tool:invalid-args',
      'tool:guard-rejected',
      'tool:execute-failed',
    ])
      expect(seen).toContain(reached)
  })
})
