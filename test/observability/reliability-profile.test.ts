import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { Agent, createGate, ProviderError, retryTransient, strictOutputRules, tool } from '../../src/index.ts'
import { reliabilityProfile } from '../../src/gate/profile/reliability-profile.ts'
import { ProfileObservations } from '../../src/gate/profile/profile-observations.ts'
import type { GateEvent } from '../../src/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { memoryStore } from '../../src/store/index.ts'
import { isUnreadableValue } from '../../src/store/unreadable-value.ts'
import { PROFILE_METRIC, profileMetrics } from '../../src/otel/profile-metrics.ts'
import { otelHarness } from './otel-support.ts'

const Schema = Type.Object({ n: Type.Integer() })
const gateOf = (steps: Parameters<typeof scripted>[0]) =>
  createGate({
    providers: scripted(steps, { name: 'p' }),
    model: 'm',
    outputSchema: Schema,
    postDecide: [retryTransient({ backoff: { initialMs: 0, maxMs: 0 } }), ...strictOutputRules(4, { stuckAfter: false })],
    pricing: { m: { input: 1, output: 1 } },
  })

async function observed(profile: ReturnType<typeof reliabilityProfile>, runs: readonly Parameters<typeof scripted>[0][]) {
  for (const steps of runs) {
    const gate = gateOf(steps)
    const off = profile.observe(gate)
    await gate.run({ messages: [{ role: 'user', content: 'hi' }] }).catch(() => undefined)
    off()
  }
  await profile.flush()
}

describe('reliabilityProfile', () => {
  it('counts, per error class and retry number, how often the retry was accepted', async () => {
    const profile = reliabilityProfile()
    await observed(profile, [
      ['nope', '{"n": 1}'],
      ['nope', 'still not json', '{"n": 1}'],
      ['{"n": "1"}', '{"n": "1"}', '{"n": 1}'],
      [{ content: '{"n": ', stopReason: 'max_tokens' }, '{"n": 1}'],
      [new ProviderError('busy', { kind: 'http-5xx', status: 503 }), '{"n": 1}'],
    ])
    const at = (errorClass: string, retry: number) => profile.recovery({ provider: 'p', model: 'm', errorClass: errorClass as never, retry })
    expect(at('parse', 1)).toMatchObject({ trials: 2, recovered: 1, rate: 0.5 })
    expect(at('parse', 2)).toMatchObject({ trials: 1, recovered: 1 })
    expect(at('schema:invalid_type', 1)).toMatchObject({ trials: 1, recovered: 0 })
    expect(at('schema:invalid_type', 2)).toMatchObject({ trials: 1, recovered: 1 })
    expect(at('truncation', 1)).toMatchObject({ trials: 1, recovered: 1 })
    expect(at('transient', 1)).toMatchObject({ trials: 1, recovered: 1 })
    expect(at('tool-args', 1)).toBeUndefined()
    const e = at('parse', 1)
    expect(e?.low).toBeLessThan(0.5)
    expect(e?.high).toBeGreaterThan(0.5)
    expect(profile.models()).toEqual([
      {
        provider: 'p',
        model: 'm',
        runs: 5,
        succeeded: 5,
        attempts: 12,
        costUsd: expect.any(Number),
        attemptsPerSuccess: 12 / 5,
        costPerSuccessUsd: expect.any(Number),
      },
    ])
  })

  it('is one profile for every process on one store: another reads what one wrote', async () => {
    const store = memoryStore()
    const one = reliabilityProfile({ store })
    const two = reliabilityProfile({ store })
    await observed(one, [['nope', '{"n": 1}']])
    await observed(two, [['nope', 'nope again', '{"n": 1}']])
    await one.refresh()
    expect(one.recovery({ provider: 'p', model: 'm', errorClass: 'parse', retry: 1 })).toMatchObject({ trials: 2, recovered: 1 })
    const fresh = reliabilityProfile({ store })
    await fresh.refresh()
    expect(fresh.entries()).toHaveLength(2)
  })

  it('forgets counts older than its window', async () => {
    let now = 0
    const store = memoryStore({ now: () => now })
    const profile = reliabilityProfile({ store, bucketMs: 1000, buckets: 2, now: () => now })
    await observed(profile, [['nope', '{"n": 1}']])
    now = 1500
    await observed(profile, [['nope', 'nope', '{"n": 1}']])
    expect(profile.recovery({ provider: 'p', model: 'm', errorClass: 'parse', retry: 1 })).toMatchObject({ trials: 2, recovered: 1 })
    now = 2500
    await profile.refresh()
    expect(profile.recovery({ provider: 'p', model: 'm', errorClass: 'parse', retry: 1 })).toMatchObject({ trials: 1, recovered: 0 })
  })

  it('refuses a counter that is not a count, never reading it as 0', async () => {
    const store = memoryStore()
    const profile = reliabilityProfile({ store, keyPrefix: 'x' })
    await observed(profile, [['nope', '{"n": 1}']])
    const bucket = Math.floor(Date.now() / 3_600_000)
    await store.set(`x:${bucket}:r|p|m|parse|1:t`, 'lots')
    const error = await profile.refresh().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(isUnreadableValue(error)).toBe(true)
  })

  it('never reads more recoveries than retries while another process writes between its reads', async () => {
    const store = memoryStore()
    const writer = reliabilityProfile({ store })
    await observed(writer, [
      ['nope', '{"n": 1}'],
      ['nope', '{"n": 1}'],
    ])
    // Another process records one more recovered retry while this one is between two counter reads.
    let between = true
    const racing: typeof store = {
      ...store,
      get: async (key) => {
        const value = await store.get(key)
        if (between && /:r\|.*:[st]$/.test(key)) {
          between = false
          await observed(writer, [['nope', '{"n": 1}']])
        }
        return value
      },
    }
    const reader = reliabilityProfile({ store: racing })
    await reader.refresh()
    expect(between).toBe(false)
    const estimate = reader.recovery({ provider: 'p', model: 'm', errorClass: 'parse', retry: 1 })
    expect(estimate?.recovered).toBeLessThanOrEqual(estimate?.trials ?? 0)
    expect(estimate?.rate).toBeLessThanOrEqual(1)
    expect(Number.isNaN(estimate?.low)).toBe(false)
    await reader.refresh()
    expect(reader.recovery({ provider: 'p', model: 'm', errorClass: 'parse', retry: 1 })).toMatchObject({ trials: 3, recovered: 3, rate: 1 })
  })

  it('refuses stored counts no process writes: more recoveries than retries, more successes than runs, a fraction of a retry', async () => {
    const bucket = Math.floor(Date.now() / 3_600_000)
    const edits: readonly [string, string, RegExp][] = [
      ['r|p|m|parse|1:s', '5', /"r\|p\|m\|parse\|1" are impossible: recoveries 5 above retries 1/],
      ['r|p|m|parse|1:t', '1.5', /retries 1\.5 is not a whole count/],
      ['m|p|m:ok', '7', /"m\|p\|m" are impossible: successes 7 above runs 1/],
    ]
    for (const [field, value, message] of edits) {
      const store = memoryStore()
      const profile = reliabilityProfile({ store, keyPrefix: 'x' })
      await observed(profile, [['nope', '{"n": 1}']])
      await store.set(`x:${bucket}:${field}`, value)
      const error = await profile.refresh().catch((e: unknown) => e)
      expect(error).toBeInstanceOf(Error)
      expect((error as Error).message).toMatch(message)
      expect(isUnreadableValue(error)).toBe(true)
      expect(profile.entries().every((e) => e.recovered <= e.trials && e.rate <= 1)).toBe(true)
    }
  })

  it('has no estimate for a retry another process named but has not counted yet', async () => {
    const store = memoryStore()
    const bucket = Math.floor(Date.now() / 3_600_000)
    // A writer names its combination in the bucket's index before it adds the counts.
    await store.set(`x:${bucket}:index`, JSON.stringify(['r|p|m|parse|1']))
    const profile = reliabilityProfile({ store, keyPrefix: 'x' })
    await profile.refresh()
    expect(profile.recovery({ provider: 'p', model: 'm', errorClass: 'parse', retry: 1 })).toBeUndefined()
    expect(profile.entries()).toEqual([])
    const otel = otelHarness()
    const stop = profileMetrics(profile, { meterProvider: otel.meterProvider })
    expect(await otel.points(PROFILE_METRIC.recoveryRate)).toEqual([])
    stop()
    await otel.shutdown()
  })

  it('refuses an index naming a retry number no process writes, never reading it as a NaN retry', async () => {
    const bucket = Math.floor(Date.now() / 3_600_000)
    for (const retry of ['x', '0', '01', '9', '1.5']) {
      const store = memoryStore()
      await store.set(`x:${bucket}:index`, JSON.stringify([`r|p|m|parse|${retry}`]))
      await store.set(`x:${bucket}:r|p|m|parse|${retry}:t`, '2')
      const profile = reliabilityProfile({ store, keyPrefix: 'x' })
      const error = await profile.refresh().catch((e: unknown) => e)
      expect(isUnreadableValue(error)).toBe(true)
      expect((error as Error).message).toContain('whose retry is not one of 1 to 4')
      expect(profile.entries()).toEqual([])
    }
  })

  it('refuses unknown options with "did you mean"', () => {
    expect(() => reliabilityProfile({ bucketMS: 10 } as never)).toThrow(/did you mean "bucketMs"/)
    expect(() => reliabilityProfile({ store: {} as never })).toThrow(/missing get/)
  })
})

describe('profileMetrics', () => {
  it('exports the recovery rates with their intervals, and cost per success, as OpenTelemetry gauges', async () => {
    const profile = reliabilityProfile()
    await observed(profile, [
      ['nope', '{"n": 1}'],
      ['nope', 'nope', '{"n": 1}'],
    ])
    const otel = otelHarness()
    const stop = profileMetrics(profile, { meterProvider: otel.meterProvider })
    const rate = await otel.points(PROFILE_METRIC.recoveryRate)
    const first = rate.find((p) => p.attributes['reliability_gate.retry'] === 1)
    expect(first?.value).toBe(0.5)
    expect(first?.attributes).toMatchObject({ 'gen_ai.provider.name': 'p', 'gen_ai.request.model': 'm', 'reliability_gate.error_class': 'parse' })
    const low = await otel.points(PROFILE_METRIC.recoveryLow)
    expect(low.find((p) => p.attributes['reliability_gate.retry'] === 1)?.value).toBeCloseTo(
      profile.recovery({ provider: 'p', model: 'm', errorClass: 'parse', retry: 1 })?.low ?? -1,
    )
    expect((await otel.points(PROFILE_METRIC.attemptsPerSuccess))[0]?.value).toBe(2.5)
    stop()
    await otel.shutdown()
  })

  it('refuses what is not a profile, and unknown options', () => {
    expect(() => profileMetrics({} as never)).toThrow(/expected a reliability profile/)
    expect(() => profileMetrics(reliabilityProfile(), { metername: 'x' } as never)).toThrow(/unknown option "metername"/)
  })
})

describe('reliabilityProfile on an agent', () => {
  it("counts a tool call's argument retries as retries of tool-args failures, recovered when the call went through", async () => {
    const reply = tool({
      name: 'reply_email',
      description: 'Reply to a message',
      input: Type.Object({ message_id: Type.String(), body: Type.String() }, { additionalProperties: false }),
      execute: () => 'sent',
    })
    const model = scripted(
      [
        { toolCalls: [{ id: 'c1', name: 'reply_email', args: { body: 'hi' } }] },
        { toolCalls: [{ id: 'c1b', name: 'reply_email', args: { body: 'hi', extra: 1 } }] },
        { toolCalls: [{ id: 'c1c', name: 'reply_email', args: { message_id: '18c4f2a9b7e3d105', body: 'hi' } }] },
        'Done.',
      ],
      { name: 'p' },
    )
    const agent = Agent.create({ provider: model, model: 'm', name: 'mail' }).tools([reply]).build()
    const profile = reliabilityProfile()
    profile.observe(agent)
    await agent.run('reply to ana')
    await profile.flush()
    expect(profile.recovery({ provider: 'p', model: 'm', errorClass: 'tool-args', retry: 1 })).toMatchObject({ trials: 1, recovered: 0 })
    expect(profile.recovery({ provider: 'p', model: 'm', errorClass: 'tool-args', retry: 2 })).toMatchObject({ trials: 1, recovered: 1 })
  })
})

describe('ProfileObservations', () => {
  const ends = (observations: ProfileObservations, runId: string, turn: number | undefined) => {
    observations.read({ type: 'run_start', runId, provider: 'p', model: 'm' } as GateEvent)
    observations.read({ type: 'attempt_end', runId, attempt: 1, provider: 'p', model: 'm', errorKind: 'ok' } as GateEvent)
    observations.read({ type: 'run_end', runId, turn, outcome: 'ok', costUsd: 0 } as GateEvent)
  }
  const toolEnd = (runId: string) => ({ type: 'tool_end', runId, tool: 't', status: 'ok', retryCount: 1 }) as GateEvent

  it('forgets the model of a gate run given a turn but run by no agent once it ends, as a long-lived observer must', () => {
    const observations = new ProfileObservations()
    ends(observations, 'plain', 3)
    // Nothing is kept for it: a late event of that run id finds no model to count a retry for.
    expect(observations.read(toolEnd('plain'))).toBeUndefined()
  })

  it("keeps an agent run's model past its gate calls until the agent run ends", () => {
    const observations = new ProfileObservations()
    observations.read({ type: 'agent_run_start', runId: 'a', agent: 'x' } as GateEvent)
    ends(observations, 'a', 1)
    expect(observations.read(toolEnd('a'))?.retries).toEqual([{ provider: 'p', model: 'm', errorClass: 'tool-args', retry: 1, recovered: true }])
    observations.read({ type: 'agent_run_end', runId: 'a' } as GateEvent)
    expect(observations.read(toolEnd('a'))).toBeUndefined()
  })
})
