import { concatMap, EMPTY } from 'rxjs'
import { TestScheduler } from 'rxjs/testing'
import { describe, expect, it } from 'vitest'
import { createGate, driftMonitor, strictOutputRules, type DriftEvent, type EventSource, type GateEvent } from '../../src/index.ts'
import { DriftWindows } from '../../src/events/drift-window.ts'
import { hubOf } from '../../src/events/event-source.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

const usage = { inputTokens: 1, outputTokens: 1 }

/** The events of one gate run: `attempts` attempts, the first `failures` of them failing validation. */
function gateRun(runId: string, attempts: number, failures: number, model = 'm1', provider = 'p'): GateEvent[] {
  const events: GateEvent[] = [{ type: 'run_start', runId, provider, model }]
  for (let i = 1; i <= attempts; i++) {
    if (i <= failures)
      events.push({ type: 'validation_failed', runId, provider, model, message: 'bad', stage: 'schema-validate', issues: [], attempt: i, cumulativeRetries: i })
    events.push({
      type: 'attempt_end',
      runId,
      attempt: i,
      provider,
      model,
      errorKind: i <= failures ? 'schema-fail' : 'ok',
      latencyMs: 1,
      usage,
      finishReason: 'end',
      response: undefined,
    })
  }
  events.push({ type: 'run_end', runId, outcome: 'ok', kind: 'ok', attempts, provider, usage, costUsd: 0, durationMs: 1, fromFallback: false })
  return events
}

describe('DriftWindows', () => {
  it('reports the validation-failure rate crossing its threshold once, then its return', () => {
    const w = new DriftWindows(2, 2, { validationFailureRate: 0.3 })
    const feed = (events: GateEvent[]) => events.flatMap((e) => w.push(e))
    expect(feed(gateRun('a', 1, 0))).toEqual([])
    expect(feed(gateRun('b', 1, 0))).toEqual([])
    expect(feed(gateRun('c', 2, 1))).toEqual([
      { runId: 'c', signal: 'validation_failure_rate', provider: 'p', model: 'm1', value: 1 / 3, threshold: 0.3, state: 'above', runs: 2 },
    ])
    expect(feed(gateRun('d', 3, 2))).toEqual([])
    expect(feed(gateRun('e', 1, 0))).toEqual([])
    expect(feed(gateRun('f', 1, 0))).toEqual([expect.objectContaining({ runId: 'f', state: 'below', value: 0 })])
  })

  it('reports mean attempts per run over the window', () => {
    const w = new DriftWindows(3, 3, { meanAttempts: 1.5 })
    const out = [gateRun('a', 1, 0), gateRun('b', 2, 1), gateRun('c', 3, 2)].flat().flatMap((e) => w.push(e))
    expect(out).toEqual([expect.objectContaining({ signal: 'mean_attempts', value: 2, threshold: 1.5, state: 'above', runs: 3 })])
  })

  it('keeps a window per provider and model', () => {
    const w = new DriftWindows(1, 1, { validationFailureRate: 0.5 })
    const out = [gateRun('a', 1, 0, 'good'), gateRun('b', 2, 2, 'bad'), gateRun('c', 1, 0, 'good')].flat().flatMap((e) => w.push(e))
    expect(out.map((e) => [e.model, e.state])).toEqual([['bad', 'above']])
  })

  it('does not judge a window before it holds minRuns runs', () => {
    const w = new DriftWindows(5, 3, { validationFailureRate: 0.1 })
    const out = [gateRun('a', 2, 1), gateRun('b', 2, 1)].flat().flatMap((e) => w.push(e))
    expect(out).toEqual([])
  })

  it('counts a tool call argument failure reported after its model call against that call', () => {
    const w = new DriftWindows(2, 2, { validationFailureRate: 0.4 })
    const events: GateEvent[] = [
      { type: 'agent_run_start', runId: 'r', agent: 'a' },
      ...gateRun('r', 1, 0),
      {
        type: 'validation_failed',
        runId: 'r',
        provider: 'p',
        model: 'm1',
        message: 'bad args',
        stage: 'tool-args',
        issues: [],
        attempt: 1,
        cumulativeRetries: 1,
      },
      ...gateRun('r', 1, 0),
    ]
    // One failure in the run's two attempts.
    expect(events.flatMap((e) => w.push(e))).toEqual([expect.objectContaining({ runId: 'r', value: 0.5, state: 'above', runs: 2 })])
  })
})

describe('driftMonitor', () => {
  it('emits drift on drift$ in step with the runs, in virtual time', () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected))
    scheduler.run(({ cold, expectObservable }) => {
      const runs = [gateRun('a', 1, 0), gateRun('b', 3, 2), gateRun('c', 1, 0), gateRun('d', 1, 0)]
      // One run ends per frame: a at frame 0, b at 1, c at 2, d at 3, delivered to the monitor's `on` listeners.
      const listeners = new Map<string, ((payload: unknown) => void)[]>()
      const source = {
        on: (name: string, listener: (payload: unknown) => void) => {
          listeners.set(name, [...(listeners.get(name) ?? []), listener])
          return () =>
            listeners.set(
              name,
              (listeners.get(name) ?? []).filter((l) => l !== listener),
            )
        },
        events$: EMPTY,
      } as unknown as EventSource
      const monitor = driftMonitor(source, { window: 2, threshold: 0.4 })
      cold<GateEvent[]>('abcd|', { a: runs[0]!, b: runs[1]!, c: runs[2]!, d: runs[3]! })
        .pipe(concatMap((batch) => batch))
        .subscribe((e) => {
          for (const listener of listeners.get(e.type) ?? []) listener(e)
        })
      const above: DriftEvent = {
        runId: 'b',
        signal: 'validation_failure_rate',
        provider: 'p',
        model: 'm1',
        value: 0.5,
        threshold: 0.4,
        state: 'above',
        runs: 2,
      }
      const below: DriftEvent = { runId: 'd', signal: 'validation_failure_rate', provider: 'p', model: 'm1', value: 0, threshold: 0.4, state: 'below', runs: 2 }
      expectObservable(monitor.drift$).toBe('-x-y', { x: above, y: below })
    })
  })

  it('emits drift on the monitored gate, where on(), events$ and recorders see it', async () => {
    const gate = createGate({
      providers: scripted(['{}', validRefundJson, validRefundJson]),
      model: 'm1',
      outputSchema: Refund,
      postDecide: strictOutputRules(3),
    })
    const monitor = driftMonitor(gate, { window: 1, threshold: { meanAttempts: 1.5 } })
    const seen: DriftEvent[] = []
    gate.on('drift', (e) => seen.push(e))
    const first = await gate.run(ask('x'))
    await gate.run(ask('y'))
    monitor.stop()
    expect(seen).toEqual([
      { runId: first.runId, signal: 'mean_attempts', provider: 'scripted', model: 'm1', value: 2, threshold: 1.5, state: 'above', runs: 1 },
      expect.objectContaining({ state: 'below', value: 1 }),
    ])
  })

  it('listens to the six events it reads only, so the gate builds no other payload for it', () => {
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: Refund })
    const monitor = driftMonitor(gate, { window: 5, threshold: 0.5 })
    const hub = hubOf(gate)!
    expect(['run_start', 'attempt_end', 'validation_failed', 'run_end'].every((name) => hub.has(name as 'run_end'))).toBe(true)
    expect(hub.has('decision') || hub.has('attempt_start') || hub.has('cost_tick')).toBe(false)
    monitor.stop()
    expect(hub.has('run_end')).toBe(false)
  })

  it('keeps reporting to the gate and to the other subscribers when a drift$ subscriber throws, and completes drift$ on stop', async () => {
    const gate = createGate({ providers: scripted(['{}', validRefundJson, validRefundJson]), outputSchema: Refund, postDecide: strictOutputRules(3) })
    const monitor = driftMonitor(gate, { window: 1, threshold: { meanAttempts: 1.5 } })
    const thrown: unknown[] = []
    const onUncaught = (error: unknown) => thrown.push(error)
    process.on('uncaughtException', onUncaught)
    try {
      const seen: DriftEvent[] = []
      let completed = false
      monitor.drift$.subscribe(() => {
        throw new Error('subscriber bug')
      })
      monitor.drift$.subscribe({ next: (e) => seen.push(e), complete: () => (completed = true) })
      const onGate: DriftEvent[] = []
      gate.on('drift', (e) => onGate.push(e))
      const result = await gate.run(ask('x'))
      await new Promise((resolve) => setTimeout(resolve, 0))
      expect(result.attempts).toHaveLength(2)
      expect(seen.map((e) => e.state)).toEqual(['above'])
      expect(onGate.map((e) => e.state)).toEqual(['above'])
      expect(thrown).toEqual([new Error('subscriber bug')])
      monitor.stop()
      expect(completed).toBe(true)
      // After stop, nothing more is reported and a new subscriber completes at once.
      await gate.run(ask('y'))
      expect(seen).toHaveLength(1)
      let late = false
      monitor.drift$.subscribe({ complete: () => (late = true) })
      expect(late).toBe(true)
    } finally {
      process.off('uncaughtException', onUncaught)
    }
  })

  it('rejects a window that is not a positive integer', () => {
    const gate = createGate({ providers: scripted([]) })
    expect(() => driftMonitor(gate, { window: 0, threshold: 0.5 })).toThrow(/window/)
  })

  it.each([
    ['no threshold', { window: 10 }, /^driftMonitor: threshold is required/],
    ['no window', { threshold: 0.5 }, /^driftMonitor: window is required/],
    ['a threshold with no signal', { window: 10, threshold: {} }, /^driftMonitor: threshold must set validationFailureRate or meanAttempts/],
    ['a misspelt signal', { window: 10, threshold: { validationFailurerate: 0.3 } }, /did you mean "validationFailureRate"/],
    ['a threshold that is a string', { window: 10, threshold: '0.5' }, /threshold/],
    ['a failure rate above 1', { window: 10, threshold: 1.5 }, /threshold must be a number from 0 to 1/],
    ['a misspelt option', { window: 10, threshold: 0.5, minruns: 3 }, /did you mean "minRuns"/],
  ])('refuses %s when built, with a TypeError or RangeError', (_name, options, message) => {
    const gate = createGate({ providers: scripted([]) })
    expect(() => driftMonitor(gate, options as never)).toThrow(message)
  })

  it('leaves every run unharmed once built: no listener throws', async () => {
    const gate = createGate({ providers: scripted(['a', 'b']) })
    const errors: unknown[] = []
    gate.on('listener_error', (e) => errors.push(e.error))
    const monitor = driftMonitor(gate, { window: 2, threshold: { meanAttempts: 3 } })
    await gate.run({ messages: [{ role: 'user', content: 'x' }] })
    await gate.run({ messages: [{ role: 'user', content: 'y' }] })
    monitor.stop()
    expect(errors).toEqual([])
  })
})
