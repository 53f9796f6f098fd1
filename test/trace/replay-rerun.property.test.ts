import fc from 'fast-check'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { failoverRule, ProviderError, type ReliabilityRule, strictOutputRules } from '../../src/index.ts'
import type { ScriptedStep } from '../../src/providers/index.ts'
import { replayTrace } from '../../src/trace/index.ts'
import { callSummary } from '../../src/trace/replay/call-summary.ts'
import { type CallScript, recordCalls, type TestConfig } from './support/record-calls.ts'

const Loose = Type.Object({ n: Type.Integer() })
const Strict = Type.Object({ n: Type.Integer() }, { additionalProperties: false })
const PRICING = { m1: { input: 1, output: 2 } }
const retry5xx: ReliabilityRule = { when: (s) => s.errorKind === 'http-5xx', then: 'retry', kind: 'retry-5xx', failuresOnly: true }

/** Answers a model gives: valid, valid with an extra field, wrong type, not JSON, cut, a 5xx. */
const ANSWERS: readonly (() => ScriptedStep)[] = [
  () => '{"n": 1}',
  () => '{"n": 2, "extra": true}',
  () => '{"n": "1"}',
  () => 'not json',
  () => ({ content: '{"n": ', stopReason: 'max_tokens' }),
  () => new ProviderError('upstream 503', { kind: 'http-5xx', status: 503 }),
]

const answer = fc.integer({ min: 0, max: ANSWERS.length - 1 })
const script = fc.record({ p: fc.array(answer, { minLength: 6, maxLength: 6 }), q: fc.array(answer, { minLength: 6, maxLength: 6 }) })
const setting = fc.record({
  attempts: fc.integer({ min: 1, max: 4 }),
  strict: fc.boolean(),
  failover: fc.boolean(),
  retry5xx: fc.boolean(),
  stuckAfter: fc.integer({ min: 2, max: 3 }),
})
type Setting = typeof setting extends fc.Arbitrary<infer S> ? S : never

const configOf = (s: Setting): TestConfig => ({
  providers: ['p', 'q'],
  outputSchema: s.strict ? Strict : Loose,
  postDecide: [...(s.retry5xx ? [retry5xx] : []), ...(s.failover ? [failoverRule()] : []), ...strictOutputRules(s.attempts, { stuckAfter: s.stuckAfter })],
  maxAttempts: 6,
  pricing: PRICING,
})
const stepsOf = (indexes: { p: number[]; q: number[] }): CallScript => ({
  p: indexes.p.map((i) => (ANSWERS[i] as () => ScriptedStep)()),
  q: indexes.q.map((i) => (ANSWERS[i] as () => ScriptedStep)()),
})

describe('replayTrace against a seeded re-run', () => {
  it('gives exactly the decisions, attempts, tokens and cost of re-running the scripted answers under the new configuration, and needs a model answer exactly where the re-run used an answer the recording never took', async () => {
    const seen = { same: 0, changed: 0, 'needs-model-answer': 0 }
    await fc.assert(
      fc.asyncProperty(fc.array(script, { minLength: 1, maxLength: 4 }), setting, setting, async (scripts, a, b) => {
        const recorded = await recordCalls(configOf(a), scripts.map(stepsOf))
        const rerun = await recordCalls(configOf(b), scripts.map(stepsOf))
        const report = await replayTrace(recorded.records, { config: configOf(b) })
        let needs = 0
        for (const [i, call] of report.calls.entries()) {
          seen[call.status]++
          const took = rerun.used[i] as Record<string, number>
          const had = recorded.used[i] as Record<string, number>
          const more = Object.keys(took).some((name) => (took[name] ?? 0) > (had[name] ?? 0))
          if (more) {
            needs++
            expect(call.status).toBe('needs-model-answer')
            continue
          }
          expect(call.status).not.toBe('needs-model-answer')
          const expected = callSummary(rerun.records.filter((r) => r.runId === call.runId))
          expect(call.after).toEqual(expected)
        }
        expect(report.needsModelAnswer).toBe(needs)
      }),
      { numRuns: 60, seed: 3201 },
    )
    // The generated cases exercise every verdict, not only the easy one.
    expect(Object.values(seen).every((n) => n > 10)).toBe(true)
  })

  it('reproduces every event of a recording replayed under its own configuration', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(script, { minLength: 1, maxLength: 4 }), setting, async (scripts, a) => {
        const recorded = await recordCalls(configOf(a), scripts.map(stepsOf))
        const report = await replayTrace(recorded.records, { config: configOf(a) })
        expect(report.eventsIdentical).toBe(scripts.length)
        expect(report.calls.every((c) => c.status === 'same')).toBe(true)
      }),
      { numRuns: 40, seed: 3202 },
    )
  })
})
