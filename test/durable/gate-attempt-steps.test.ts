import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { type DurableRunError, isDurableRunError, memoryDurablePort } from '../../src/durable.ts'
import {
  createGate,
  type GateEvent,
  isProviderError,
  isReliabilityFailFastError,
  ProviderError,
  type ReliabilityFailFastError,
  retryTransient,
  strictOutputRules,
} from '../../src/index.ts'
import { scripted, type ScriptedStep } from '../../src/providers/index.ts'
import { crashingEngine, stepNames } from './support/crashing-engine.ts'

const Amount = Type.Object({ amount: Type.Integer() }, { additionalProperties: false })
const ask = { messages: [{ role: 'user' as const, content: 'how much?' }] }
const overloaded = (): ProviderError => new ProviderError('overloaded', { kind: 'http-5xx', status: 503 })
const limited = (): ProviderError => new ProviderError('slow down', { kind: 'rate-limit', status: 429, retryAfterMs: 7 })

/** A gate over `steps` that retries invalid answers with feedback and transient failures with backoff, recording its events. */
function gateOver(steps: readonly ScriptedStep[], name = 'scripted') {
  const provider = scripted(steps, { name })
  const gate = createGate({
    providers: provider,
    outputSchema: Amount,
    postDecide: [retryTransient({ maxRetries: 5, backoff: { initialMs: 100, maxMs: 400, jitter: 1 } }), ...strictOutputRules(6)],
  })
  const events: GateEvent[] = []
  gate.events$.subscribe((e) => events.push(e))
  return { provider, gate, events }
}

/** A port over a memory journal whose steps run only once the caller gave up: `controller` aborted, then a few ms later. */
function afterGivingUp(controller: AbortController, journal: string[]) {
  const inner = memoryDurablePort({ runId: 'r', journal })
  return {
    runId: 'r',
    step: async <T>(name: string, fn: () => T | Promise<T>) => {
      controller.abort(new Error('gave up'))
      await new Promise((resolve) => setTimeout(resolve, 5))
      return inner.step(name, fn)
    },
    sleep: inner.sleep,
  }
}

const failure = async (run: Promise<unknown>): Promise<ReliabilityFailFastError> => {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!isReliabilityFailFastError(error)) throw new Error(`expected a fail-fast error, got ${String(error)}`)
  return error
}

describe('Gate attempts in a durable run', () => {
  it('runs each whole attempt as the step attempt:gate:<n> and each wait as the sleep wait:gate:<n>', async () => {
    const journal: string[] = []
    const { gate } = gateOver(['not json', overloaded(), '{"amount": 5}'])
    const { port, sleeps } = crashingEngine('run-1', journal)
    const result = await gate.run(ask, { durable: port })
    expect(result.value).toEqual({ amount: 5 })
    expect(result.runId).toBe('run-1')
    expect(stepNames(journal)).toEqual(['attempt:gate:1', 'attempt:gate:2', 'wait:gate:2', 'attempt:gate:3'])
    expect(sleeps.map((s) => s.name)).toEqual(['wait:gate:2'])
    const values = journal.map((entry) => (JSON.parse(entry) as { value?: unknown }).value)
    expect(values[0]).toMatchObject({ v: 1, provider: 'scripted', response: { content: 'not json', stopReason: 'end' }, costUsd: 0 })
    const digest = expect.stringMatching(/^[0-9a-f]{64}$/)
    expect(values[1]).toEqual({ v: 1, provider: 'scripted', request: digest, failure: { kind: 'http-5xx', message: 'overloaded', status: 503 } })
    // Each attempt is bound to what it sent: the retry after the invalid answer sent the feedback tail too.
    const sent = values.filter((v) => v !== undefined).map((v) => (v as { request: string }).request)
    expect(sent[0]).not.toBe(sent[1])
    expect(sent[1]).toBe(sent[2])
  })

  it('resumes a run that died after attempt 2 of 3: only attempt 3 calls the provider, with the same retry tail', async () => {
    const steps: ScriptedStep[] = ['not json', '{"amount": "five"}', '{"amount": 5}']
    const whole = gateOver(steps)
    const uninterrupted = await whole.gate.run(ask, { durable: crashingEngine('r', []).port })

    const journal: string[] = []
    const dying = gateOver(steps)
    const crash = await failure(dying.gate.run(ask, { durable: crashingEngine('r', journal, 2).port }))
    expect(crash.kind).toBe('durable-journal')
    expect(stepNames(journal)).toEqual(['attempt:gate:1', 'attempt:gate:2'])
    expect(dying.provider.calls).toBe(3)

    const resumed = gateOver(steps.slice(2))
    const result = await resumed.gate.run(ask, { durable: crashingEngine('r', journal).port })
    expect(resumed.provider.calls).toBe(1)
    expect(result.value).toEqual(uninterrupted.value)
    expect(resumed.provider.requests[0]?.messages).toEqual(whole.provider.requests[2]?.messages)
    const tailOf = (r: typeof result) => r.attempts.map((a) => [a.errorKind, a.decision, a.feedbackSent])
    expect(tailOf(result)).toEqual(tailOf(uninterrupted))
    expect(result.attempts[1]?.feedbackSent).toContain('amount')
    expect(result.usage).toEqual(uninterrupted.usage)
  })

  it('marks the events of attempts answered from the journal replayed: true, and no others', async () => {
    const steps: ScriptedStep[] = ['not json', '{"amount": "five"}', '{"amount": 5}']
    const journal: string[] = []
    await failure(gateOver(steps).gate.run(ask, { durable: crashingEngine('r', journal, 2).port }))
    const resumed = gateOver(steps.slice(2))
    await resumed.gate.run(ask, { durable: crashingEngine('r', journal).port })
    const attemptEvents = resumed.events.filter((e) => e.type === 'attempt_start' || e.type === 'attempt_end' || e.type === 'validation_failed')
    expect(attemptEvents.map((e) => [e.type, (e as { attempt: number }).attempt, e.replayed])).toEqual([
      ['attempt_start', 1, true],
      ['validation_failed', 1, true],
      ['attempt_end', 1, true],
      ['attempt_start', 2, true],
      ['validation_failed', 2, true],
      ['attempt_end', 2, true],
      ['attempt_start', 3, undefined],
      ['attempt_end', 3, undefined],
    ])
    expect(resumed.events.filter((e) => e.type === 'retry').map((e) => e.replayed)).toEqual([true, true])
    expect(resumed.events.find((e) => e.type === 'run_start')?.replayed).toBeUndefined()
    expect(resumed.events.filter((e) => e.type === 'cost_tick').map((e) => (e as { attempt: number }).attempt)).toEqual([3])
  })

  it('emits an attempt’s attempt_start before its attempt_end, and nothing after the run’s end, when the port answers only after the run was aborted', async () => {
    const journal: string[] = []
    await gateOver(['{"amount": 1}']).gate.run(ask, { durable: memoryDurablePort({ runId: 'r', journal }) })
    const controller = new AbortController()
    // A port that answers the journaled attempt once the caller has given up.
    const slow = afterGivingUp(controller, journal)
    const { gate, events } = gateOver([])
    expect((await failure(gate.run(ask, { durable: slow, signal: controller.signal }))).kind).toBe('aborted')
    await new Promise((resolve) => setTimeout(resolve, 20))
    const types = events.map((e) => e.type)
    expect(types.filter((t) => t === 'attempt_start')).toHaveLength(1)
    expect(types.indexOf('attempt_start')).toBeLessThan(types.indexOf('attempt_end'))
    expect(types.at(-1)).toBe('run_end')
  })

  it('rebuilds a journaled failure as a ProviderError with its kind, status and retry-after', async () => {
    const journal: string[] = []
    const first = gateOver([limited(), new ProviderError('no key', { kind: 'auth', status: 401 })])
    const firstError = await failure(first.gate.run(ask, { durable: crashingEngine('r', journal).port }))
    const replay = gateOver([])
    const replayError = await failure(replay.gate.run(ask, { durable: crashingEngine('r', journal).port }))
    expect(replay.provider.calls).toBe(0)
    expect(replayError.kind).toBe(firstError.kind)
    expect(replayError.attempts.map((a) => [a.errorKind, (a.error as ProviderError).retryAfterMs])).toEqual([
      ['rate-limit', 7],
      ['auth', undefined],
    ])
    const cause = replayError.cause
    expect(isProviderError(cause)).toBe(true)
    expect(cause).toMatchObject({ name: 'ProviderError', kind: 'auth', status: 401, message: 'no key', provider: 'scripted' })
    // The rate limit's retry-after is the wait, on the first run and on the replay.
    expect(replay.events.find((e) => e.type === 'retry')).toMatchObject({ delayMs: 7, replayed: true })
    expect(first.events.find((e) => e.type === 'retry')).toMatchObject({ delayMs: 7 })
  })

  it('rebuilds a retry-after an older version journaled past what a timer holds as the longest wait, never a corrupt entry', async () => {
    const journal: string[] = []
    await failure(
      gateOver([limited(), new ProviderError('no key', { kind: 'auth', status: 401 })]).gate.run(ask, { durable: crashingEngine('r', journal).port }),
    )
    const edited = journal.map((entry) => entry.replaceAll('"retryAfterMs":7', '"retryAfterMs":1.7976931348623157e+308'))
    expect(edited).not.toEqual(journal)
    const replay = gateOver([])
    const replayError = await failure(replay.gate.run(ask, { durable: crashingEngine('r', edited).port }))
    expect(replay.provider.calls).toBe(0)
    // The wait is now too long for the rule to take, so the replay stops at the first attempt, rebuilt.
    expect(replayError.attempts.map((a) => [a.errorKind, (a.error as ProviderError).retryAfterMs])).toEqual([['rate-limit', 2 ** 31 - 1]])
    expect(replayError.kind).not.toBe('durable-journal')
  })

  it('fails fast with kind durable-journal when the replay calls another provider than the journal holds', async () => {
    const journal: string[] = []
    await gateOver(['{"amount": 1}'], 'alpha').gate.run(ask, { durable: crashingEngine('r', journal).port })
    const other = gateOver(['{"amount": 1}'], 'beta')
    const error = await failure(other.gate.run(ask, { durable: crashingEngine('r', journal).port }))
    expect(error.kind).toBe('durable-journal')
    expect(isDurableRunError(error.cause)).toBe(true)
    expect((error.cause as DurableRunError).kind).toBe('divergence')
    expect(other.provider.calls).toBe(0)
  })

  it('fails fast with kind durable-journal when the replay sends another request than the journaled attempt was sent', async () => {
    const journal: string[] = []
    await gateOver(['{"amount": 1}']).gate.run(ask, { durable: crashingEngine('r', journal).port })
    const other = gateOver(['{"amount": 2}'])
    const another = { messages: [{ role: 'user' as const, content: 'how much, in cents?' }] }
    const error = await failure(other.gate.run(another, { durable: crashingEngine('r', journal).port }))
    expect([error.kind, (error.cause as DurableRunError).kind]).toEqual(['durable-journal', 'divergence'])
    expect((error.cause as DurableRunError).message).toMatch(/another request/)
    expect(other.provider.calls).toBe(0)
    // The same request replays the journaled answer, key order of the request notwithstanding.
    const same = gateOver(['{"amount": 2}'])
    const reordered = { messages: [{ content: 'how much?', role: 'user' as const }] }
    expect((await same.gate.run(reordered, { durable: crashingEngine('r', journal).port })).value).toEqual({ amount: 1 })
    expect(same.provider.calls).toBe(0)
  })

  it('journals an attempt whose question JSON cannot write (a bigint in a tool schema) unbound, and replays it', async () => {
    const journal: string[] = []
    const odd = { ...ask, tools: [{ name: 'lookup', inputSchema: { type: 'object', maximum: 10n } }] }
    expect((await gateOver(['{"amount": 3}']).gate.run(odd, { durable: crashingEngine('r', journal).port })).value).toEqual({ amount: 3 })
    expect((JSON.parse(journal[0] as string) as { value: Record<string, unknown> }).value).not.toHaveProperty('request')
    const replay = gateOver(['{"amount": 4}'])
    expect((await replay.gate.run(odd, { durable: crashingEngine('r', journal).port })).value).toEqual({ amount: 3 })
    expect(replay.provider.calls).toBe(0)
  })

  it('refuses as corrupt-entry a journaled attempt whose request digest is no SHA-256', async () => {
    const journal = [
      JSON.stringify({
        v: 1,
        seq: 0,
        name: 'attempt:gate:1',
        ok: true,
        value: { v: 1, provider: 'scripted', request: 'x', response: { content: '{"amount": 1}', toolCalls: [] } },
      }),
    ]
    const { gate, provider } = gateOver(['{"amount": 1}'])
    const error = await failure(gate.run(ask, { durable: crashingEngine('r', journal).port }))
    expect((error.cause as DurableRunError).kind).toBe('corrupt-entry')
    expect(provider.calls).toBe(0)
  })

  it('fails fast with kind durable-journal when the replay asks for other steps than the journal holds', async () => {
    const journal = [JSON.stringify({ v: 1, seq: 0, name: 'tool:1:c1', ok: true, value: 1 })]
    const { gate, provider } = gateOver(['{"amount": 1}'])
    const error = await failure(gate.run(ask, { durable: crashingEngine('r', journal).port }))
    expect(error.kind).toBe('durable-journal')
    expect((error.cause as DurableRunError).kind).toBe('divergence')
    expect(provider.calls).toBe(0)
  })

  it.each([
    ['a response of the wrong shape', { v: 1, provider: 'scripted', response: { content: 5 } }],
    ['an unknown failure kind', { v: 1, provider: 'scripted', failure: { kind: 'meltdown', message: 'x' } }],
    ['a negative cost', { v: 1, provider: 'scripted', usage: { inputTokens: 1, outputTokens: 1 }, costUsd: -1, failure: { kind: 'network', message: 'x' } }],
    ['no outcome', { v: 1, provider: 'scripted' }],
    ['another version', { v: 2, provider: 'scripted', response: { content: '{}', toolCalls: [], stopReason: 'end' } }],
  ])('fails fast typed on a journaled attempt with %s (corrupt-entry), never retrying it', async (_what, value) => {
    const journal = [JSON.stringify({ v: 1, seq: 0, name: 'attempt:gate:1', ok: true, value })]
    const { gate, provider } = gateOver(['{"amount": 1}'])
    const error = await failure(gate.run(ask, { durable: crashingEngine('r', journal).port }))
    expect(error.kind).toBe('durable-journal')
    expect((error.cause as DurableRunError).kind).toBe('corrupt-entry')
    expect(error.attempts).toHaveLength(1)
    expect(provider.calls).toBe(0)
  })

  it('draws the backoff jitter from the run id and attempt: a replay and a rerun wait what the first run waited', async () => {
    const steps = [overloaded(), overloaded(), '{"amount": 2}']
    const journal: string[] = []
    const first = crashingEngine('jitter-run', journal)
    await gateOver(steps).gate.run(ask, { durable: first.port })
    const again = crashingEngine('jitter-run', [])
    await gateOver(steps).gate.run(ask, { durable: again.port })
    expect(again.sleeps).toEqual(first.sleeps)
    expect(first.sleeps).toHaveLength(2)
    const replay = gateOver([])
    await replay.gate.run(ask, { durable: crashingEngine('jitter-run', journal).port })
    const delays = (events: readonly GateEvent[]) => events.filter((e) => e.type === 'retry').map((e) => (e as { delayMs: number }).delayMs)
    expect(delays(replay.events)).toEqual(first.sleeps.map((s) => s.ms))
  })

  it('does not sleep again on replay for a wait it already slept', async () => {
    const journal: string[] = []
    await gateOver([overloaded(), '{"amount": 2}']).gate.run(ask, { durable: crashingEngine('r', journal).port })
    const replay = crashingEngine('r', journal)
    await gateOver([]).gate.run(ask, { durable: replay.port })
    expect(replay.sleeps).toEqual([])
    expect(replay.ran).toEqual([])
  })

  it('sleeps a wait longer than one timer allows in named parts', async () => {
    const sleeps: [string, number][] = []
    const port = memoryDurablePort({ runId: 'r' })
    const recording = { runId: 'r', step: port.step, sleep: async (name: string, ms: number) => void sleeps.push([name, ms]) }
    const longWait = { when: () => true, then: 'retry' as const, kind: 'long-wait', failuresOnly: true, delayMs: 2 ** 31 + 4 }
    const gate = createGate({ providers: scripted([overloaded(), '{"amount": 1}']), outputSchema: Amount, postDecide: [longWait] })
    await gate.run(ask, { durable: recording })
    expect(sleeps).toEqual([
      ['wait:gate:1', 2 ** 31 - 1],
      ['wait:gate:1.2', 5],
    ])
  })

  it('leaves no timer of a memory port’s wait behind a run aborted while it waits, and journals no sleep', async () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    const journal: string[] = []
    const controller = new AbortController()
    const port = memoryDurablePort({ runId: 'r', journal })
    const watching = {
      runId: 'r',
      step: port.step,
      sleep: (name: string, ms: number, signal?: AbortSignal) => {
        const sleeping = port.sleep(name, ms, signal)
        queueMicrotask(() => controller.abort(new Error('shutting down')))
        return sleeping
      },
    }
    const hourly = { when: () => true, then: 'retry' as const, kind: 'hourly', failuresOnly: true, delayMs: 3_600_000 }
    const gate = createGate({ providers: scripted([overloaded(), '{"amount": 1}']), outputSchema: Amount, postDecide: [hourly] })
    const before = timers()
    const error = await failure(gate.run(ask, { durable: watching, signal: controller.signal }))
    expect(error.kind).toBe('aborted')
    await new Promise((resolve) => setImmediate(resolve))
    expect(timers()).toBeLessThanOrEqual(before)
    expect(stepNames(journal)).toEqual(['attempt:gate:1'])
    // The resume waits again, then answers.
    const resumed = gateOver(['{"amount": 2}'])
    const sleeps: string[] = []
    const replay = memoryDurablePort({ runId: 'r', journal })
    const quick = { runId: 'r', step: replay.step, sleep: async (name: string) => void sleeps.push(name) }
    const fast = createGate({ providers: resumed.provider, outputSchema: Amount, postDecide: [hourly] })
    expect((await fast.run(ask, { durable: quick })).value).toEqual({ amount: 2 })
    expect(sleeps).toEqual(['wait:gate:1'])
  })

  it('sleeps no further part of a long wait once the run was aborted', async () => {
    const sleeps: string[] = []
    const controller = new AbortController()
    const port = memoryDurablePort({ runId: 'r' })
    const recording = {
      runId: 'r',
      step: port.step,
      sleep: async (name: string) => {
        sleeps.push(name)
        controller.abort(new Error('shutting down'))
      },
    }
    const longWait = { when: () => true, then: 'retry' as const, kind: 'long-wait', failuresOnly: true, delayMs: 3 * (2 ** 31 - 1) }
    const gate = createGate({ providers: scripted([overloaded(), '{"amount": 1}']), outputSchema: Amount, postDecide: [longWait] })
    const error = await failure(gate.run(ask, { durable: recording, signal: controller.signal }))
    expect(error.kind).toBe('aborted')
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(sleeps).toEqual(['wait:gate:1'])
  })

  it('fails a run aborted during a durable wait as aborted, at once', async () => {
    const controller = new AbortController()
    const port = memoryDurablePort({ runId: 'r' })
    const hanging = {
      runId: 'r',
      step: port.step,
      sleep: () => {
        controller.abort(new Error('shutting down'))
        return new Promise<void>(() => {})
      },
    }
    const { gate, provider } = gateOver([overloaded(), '{"amount": 1}'])
    const error = await failure(gate.run(ask, { durable: hanging, signal: controller.signal }))
    expect(error.kind).toBe('aborted')
    expect(provider.calls).toBe(1)
  })

  it('journals no outcome for an attempt the run’s abort stopped: the resumed run makes that attempt again and answers', async () => {
    const journal: string[] = []
    const controller = new AbortController()
    // The provider hangs until the caller aborts the run (a process shutting down), then fails with the abort.
    const hanging: ScriptedStep = (request) =>
      new Promise((_, reject) => {
        request.signal?.addEventListener('abort', () => reject(request.signal?.reason))
        queueMicrotask(() => controller.abort(new Error('shutting down')))
      })
    const first = gateOver([overloaded(), hanging])
    const error = await failure(first.gate.run(ask, { durable: memoryDurablePort({ runId: 'r', journal }), signal: controller.signal }))
    expect(error.kind).toBe('aborted')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(stepNames(journal)).toEqual(['attempt:gate:1', 'wait:gate:1'])
    const resumed = gateOver(['{"amount": 3}'])
    const result = await resumed.gate.run(ask, { durable: memoryDurablePort({ runId: 'r', journal }) })
    expect(result.value).toEqual({ amount: 3 })
    expect(resumed.provider.calls).toBe(1)
  })

  it('calls no provider and journals nothing when the engine runs an attempt’s step after the run stopped', async () => {
    const journal: string[] = []
    const controller = new AbortController()
    // An engine that queues the step and runs it once the caller has given up.
    const late = afterGivingUp(controller, journal)
    const { gate, provider } = gateOver(['{"amount": 1}'])
    const error = await failure(gate.run(ask, { durable: late, signal: controller.signal }))
    expect(error.kind).toBe('aborted')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(provider.calls).toBe(0)
    expect(journal).toEqual([])
  })

  it('anchors runTimeoutMs to the journaled start: a run resumed past its deadline fails run-timeout without a call', async () => {
    const journal = [JSON.stringify({ v: 1, seq: 0, name: 'start:gate', ok: true, value: Date.now() - 60_000 })]
    const { gate, provider } = gateOver(['{"amount": 1}'])
    const error = await failure(gate.run(ask, { durable: crashingEngine('r', journal).port, runTimeoutMs: 30_000 }))
    expect(error.kind).toBe('run-timeout')
    expect(provider.calls).toBe(0)
  })

  it('journals the start of a run with runTimeoutMs once, and keeps its deadline on the resume', async () => {
    const journal: string[] = []
    const before = Date.now()
    await gateOver(['{"amount": 1}']).gate.run(ask, { durable: crashingEngine('r', journal).port, runTimeoutMs: 30_000 })
    expect(stepNames(journal)).toEqual(['start:gate', 'attempt:gate:1'])
    const started = (JSON.parse(journal[0] as string) as { value: number }).value
    expect(started).toBeGreaterThanOrEqual(before)
    const replay = await gateOver([]).gate.run(ask, { durable: crashingEngine('r', journal).port, runTimeoutMs: 30_000 })
    expect(replay.value).toEqual({ amount: 1 })
  })

  it('fails fast with kind durable-journal when the journaled start is no clock reading, or not where the run asks for it', async () => {
    const corrupt = [JSON.stringify({ v: 1, seq: 0, name: 'start:gate', ok: true, value: 'yesterday' })]
    const first = gateOver(['{"amount": 1}'])
    const error = await failure(first.gate.run(ask, { durable: crashingEngine('r', corrupt).port, runTimeoutMs: 30_000 }))
    expect([error.kind, (error.cause as DurableRunError).kind]).toEqual(['durable-journal', 'corrupt-entry'])
    // A journal written without runTimeoutMs: the run that asks for its start diverges from it.
    const journal: string[] = []
    await gateOver(['{"amount": 1}']).gate.run(ask, { durable: crashingEngine('r', journal).port })
    const second = gateOver(['{"amount": 1}'])
    const diverged = await failure(second.gate.run(ask, { durable: crashingEngine('r', journal).port, runTimeoutMs: 30_000 }))
    expect([diverged.kind, (diverged.cause as DurableRunError).kind]).toEqual(['durable-journal', 'divergence'])
    expect(first.provider.calls + second.provider.calls).toBe(0)
  })

  it('answers a failed attempt as data from its step: the engine sees no throw it could retry', async () => {
    const outcomes: string[] = []
    const watching = {
      runId: 'r',
      step: async (_name: string, fn: () => unknown) => {
        const value = await Promise.resolve(fn()).then(
          (v) => (outcomes.push('answered'), v),
          (e: unknown) => (outcomes.push('threw'), Promise.reject(e)),
        )
        return value
      },
      sleep: async () => {},
    }
    const { gate, provider } = gateOver([overloaded(), limited(), '{"amount": 3}'])
    expect((await gate.run(ask, { durable: watching as never })).value).toEqual({ amount: 3 })
    expect(outcomes).toEqual(['answered', 'answered', 'answered'])
    expect(provider.calls).toBe(3)
  })

  it('fails fast typed, never retrying, on a journaled attempt your port answers that cannot be read', async () => {
    const hostile = new Proxy(
      {},
      {
        // Not a thenable (so the port's answer is this object), but every field throws.
        get(_target, key) {
          if (key === 'then') return undefined
          throw new Error('revoked')
        },
      },
    )
    const port = { runId: 'r', step: async () => hostile, sleep: async () => {} }
    const { gate, provider } = gateOver(['{"amount": 1}'])
    const error = await failure(gate.run(ask, { durable: port as never }))
    expect([error.kind, (error.cause as DurableRunError).kind, error.attempts.length]).toEqual(['durable-journal', 'corrupt-entry', 1])
    expect(provider.calls).toBe(0)
  })

  it('takes the run id from the port and refuses another one with a TypeError', async () => {
    const { gate, provider } = gateOver(['{"amount": 1}'])
    await expect(gate.run(ask, { durable: memoryDurablePort({ runId: 'port-run' }), runId: 'mine' })).rejects.toThrow(TypeError)
    expect(provider.calls).toBe(0)
    const result = await gate.run(ask, { durable: memoryDurablePort({ runId: 'port-run' }), runId: 'port-run' })
    expect(result.runId).toBe('port-run')
  })

  it('refuses a durable option that is no port, on the gate and on a run', async () => {
    expect(() => createGate({ providers: scripted([]), durable: { runId: 'x' } as never })).toThrow(/DurablePort/)
    const { gate } = gateOver([])
    await expect(gate.run(ask, { durable: { runId: '', step: () => 1, sleep: () => 1 } as never })).rejects.toThrow(/DurablePort/)
  })

  it('refuses to stream on a gate made with a port, whose runs are journaled', () => {
    const gate = createGate({ providers: scripted(['{"amount": 1}']), outputSchema: Amount, durable: memoryDurablePort({ runId: 'wf' }) })
    expect(() => gate.stream(ask)).toThrow(/durable port/)
  })

  it('journals every run of a gate made with a port, a second call of the run under its own key', async () => {
    const journal: string[] = []
    const provider = scripted(['{"amount": 1}', '{"amount": 2}'])
    const gate = createGate({ providers: provider, outputSchema: Amount, durable: memoryDurablePort({ runId: 'wf', journal }) })
    expect((await gate.run(ask)).value).toEqual({ amount: 1 })
    expect((await gate.run(ask)).value).toEqual({ amount: 2 })
    expect(stepNames(journal)).toEqual(['attempt:gate:1', 'attempt:gate#2:1'])
  })
})
