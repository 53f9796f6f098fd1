import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { Type } from 'typebox'
import { beforeAll, describe, expect, it } from 'vitest'
import { failoverRule, maxCostRule, type ReliabilityRule, strictOutput, strictOutputRules } from '../../src/index.ts'
import { readTrace, type ReplayConfig, replayTrace, type TraceRecord } from '../../src/trace/index.ts'
import type { RecordedCall } from '../../src/trace/index.ts'
import { Refund } from '../../examples/strict-output.ts'
import { tracePath } from './support/record-calls.ts'

// The demo's configurations, restated: what each example gave its agent or gate (examples/*.ts).
const Ticket = Type.Object({ title: Type.String(), priority: Type.Integer({ minimum: 1, maximum: 5 }) }, { additionalProperties: false })
const Contact = Type.Object({ name: Type.String(), email: Type.String({ format: 'email' }), tags: Type.Array(Type.String()) })
const Summary = Type.Object({ headline: Type.String(), sentiment: Type.Union([Type.Literal('positive'), Type.Literal('neutral'), Type.Literal('negative')]) })
const SupportTicket = Type.Object(
  { category: Type.Union([Type.Literal('billing'), Type.Literal('bug'), Type.Literal('other')]), priority: Type.Integer({ minimum: 1, maximum: 5 }) },
  { additionalProperties: false },
)
const StepRefund = Type.Object(
  { orderId: Type.String(), action: Type.Union([Type.Literal('refund'), Type.Literal('reject')]), amount: Type.Number() },
  { additionalProperties: false },
)
const STEP = {
  max_attempts: 3,
  error_feedback: true,
  retry_hint: 'Amounts are plain numbers, without currency.',
  retry_on: ['parse', 'schema', 'rate_limit'],
  schema_strict: true,
  max_feedback_tokens: 2000,
  error_template: [
    'Attempt {{ attempt }}: your answer was rejected ({{ error_type }} error).',
    '{% for e in errors %}',
    "- '{{ e.loc_str }}': {{ e.msg }}",
    '{% endfor %}',
    '{{ retry_hint }}',
  ].join('\n'),
}
const overload: ReliabilityRule = {
  when: (s) => (s.errorKind === 'http-5xx' || s.errorKind === 'rate-limit') && s.canSwitchProvider,
  then: 'retry-other',
  kind: 'failover',
  label: 'fail over on overload',
}
let clock = 0
const breakerGate: ReplayConfig = {
  outputSchema: Summary,
  pricing: { 'big-1': { input: 3, output: 15 }, 'small-1': { input: 0.25, output: 1.25 } },
  breaker: { failureThreshold: 2, cooldownMs: 30_000, now: () => clock },
  preCheck: [maxCostRule(0.05)],
  postDecide: [failoverRule(), ...strictOutputRules(3)],
}
const stepConfig = strictOutput.fromStepConfig(STEP)

/** The configuration of each of the demo's calls, told apart by agent, provider and order, as the demo made them. */
function demoConfig(calls: readonly RecordedCall[]): (call: RecordedCall) => ReplayConfig {
  const billingRuns = [...new Set(calls.filter((c) => c.agent === 'billing').map((c) => c.runId))]
  const triageRuns = [...new Set(calls.filter((c) => c.agent === 'triage').map((c) => c.runId))]
  const breakerRuns = [...new Set(calls.filter((c) => c.agent === undefined && c.providers[0]?.name === 'primary').map((c) => c.runId))]
  const configs = {
    strictOutput: { outputSchema: Refund, postDecide: strictOutputRules(3) },
    stepConfig: { ...stepConfig, outputSchema: StepRefund },
    stuck: { outputSchema: Ticket, postDecide: strictOutputRules(5) },
    observe: { outputSchema: Contact, postDecide: strictOutputRules(4) },
    failover: { outputSchema: Summary, postDecide: [overload, ...strictOutputRules(3)] },
    tools: {},
    support: { outputSchema: SupportTicket, postDecide: strictOutputRules(3) },
  } satisfies Record<string, ReplayConfig>
  return (call) => {
    if (call.agent === 'billing') return billingRuns.indexOf(call.runId) === 0 ? configs.strictOutput : configs.stepConfig
    if (call.agent === 'triage') return triageRuns.indexOf(call.runId) === 0 ? configs.stuck : configs.support
    if (call.agent === 'agent') return configs.observe
    if (call.agent === 'summarizer') return configs.failover
    if (call.agent === 'mail') return configs.tools
    // The breaker example's clock: 30 s pass before its fourth run.
    if (breakerRuns.includes(call.runId)) {
      if (breakerRuns.indexOf(call.runId) === 3) clock = 30_000
      return breakerGate
    }
    return configs.support
  }
}

let records: readonly TraceRecord[]

beforeAll(() => {
  const path = tracePath()
  const demo = spawnSync(process.execPath, ['examples/demo.ts', '--trace', path], { encoding: 'utf8', timeout: 60_000 })
  expect(demo.status, demo.stderr).toBe(0)
  records = readTrace(readFileSync(path, 'utf8')).records
})

describe('replayTrace on the demo', () => {
  it("reproduces every decision, event and cost of the demo's trace under the demo's own configurations", async () => {
    const { recordedCalls } = await import('../../src/trace/replay/recorded-calls.ts')
    const { calls } = recordedCalls(records)
    clock = 0
    const report = await replayTrace(records, { config: demoConfig(calls) })
    expect(report.unreplayable).toEqual([])
    expect(report.calls.length).toBeGreaterThanOrEqual(15)
    expect(report.calls.filter((c) => c.status !== 'same').map((c) => [c.id, c.status, c.divergence])).toEqual([])
    expect(report.calls.filter((c) => !c.eventsIdentical).map((c) => c.id)).toEqual([])
    expect(report.after).toEqual(report.before)
  })
})
