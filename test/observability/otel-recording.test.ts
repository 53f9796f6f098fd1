import { INVALID_SPAN_CONTEXT, metrics, ProxyTracer, ProxyTracerProvider, trace, type Attributes, type Tracer } from '@opentelemetry/api'
import { ParentBasedSampler, SamplingDecision, type Sampler } from '@opentelemetry/sdk-trace-base'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Agent, createGate, strictOutputRules } from '../../src/index.ts'
import { hubOf } from '../../src/events/event-source.ts'
import type { EventSource } from '../../src/events/event-source.ts'
import { instrument } from '../../src/otel/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'
import { childrenOf, otelHarness, parentOf } from './otel-support.ts'

/** A gate whose every run takes two attempts (a schema failure, then the valid answer). */
const retryingGate = (runs = 1) =>
  createGate({
    providers: scripted(Array.from({ length: runs }, () => ['{"orderId": 42}', validRefundJson]).flat()),
    model: 'm',
    outputSchema: Refund,
    postDecide: strictOutputRules(3),
  })

/** The events whose listeners make the gate build a payload on every attempt. */
const PER_ATTEMPT = ['attempt_start', 'attempt_end', 'decision', 'validation_failed', 'cost_tick', 'retry', 'run_end'] as const

/** The per-attempt events someone listens to on the gate or agent. */
function listened(source: EventSource): string[] {
  const hub = hubOf(source)
  if (hub === undefined) throw new Error('not a gate or an agent of this library')
  return PER_ATTEMPT.filter((name) => hub.has(name))
}

/** Samples the roots `sample` picks; children follow their root. */
const roots = (sample: (name: string, attributes: Attributes) => boolean): Sampler =>
  new ParentBasedSampler({
    root: {
      shouldSample: (_context, _traceId, name, _kind, attributes) => ({
        decision: sample(name, attributes) ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD,
      }),
      toString: () => 'test sampler',
    },
  })

afterEach(() => {
  trace.disable()
  metrics.disable()
  vi.restoreAllMocks()
})

describe('instrument() on the OpenTelemetry API with no SDK', () => {
  it('starts no span and listens to no per-attempt event', async () => {
    expect(trace.getTracerProvider()).toBeInstanceOf(ProxyTracerProvider)
    const startSpan = vi.spyOn(ProxyTracer.prototype, 'startSpan')
    const gate = retryingGate(2)
    const stop = instrument(gate)
    expect(listened(gate)).toEqual([])
    await gate.run(ask('a'))
    const result = await gate.run(ask('b'))
    expect(result.attempts).toHaveLength(2)
    expect(startSpan).not.toHaveBeenCalled()
    expect(listened(gate)).toEqual([])
    expect(hubOf(gate)?.has('run_start')).toBe(true)
    stop()
    expect(hubOf(gate)?.listenerCount).toBe(0)
  })

  it('reports the runs that start after an SDK tracer provider is registered globally', async () => {
    const h = otelHarness()
    const gate = retryingGate(2)
    const stop = instrument(gate)
    await gate.run(ask('before'), { runId: 'before' })
    expect(trace.setGlobalTracerProvider(h.tracerProvider)).toBe(true)
    await gate.run(ask('after'), { runId: 'after' })
    stop()
    const spans = h.spans()
    const root = spans.find((s) => s.name === 'invoke_workflow reliability-gate')
    expect(spans.filter((s) => parentOf(s) === undefined)).toEqual([root])
    expect(root?.attributes['reliability_gate.run_id']).toBe('after')
    expect(childrenOf(spans, root!).map((s) => [s.name, s.attributes['reliability_gate.attempt'], s.attributes['reliability_gate.decision']])).toEqual([
      ['chat m', 1, 'retry'],
      ['chat m', 2, 'ok'],
    ])
  })

  it('still records metrics to a meter provider it is given, with no span', async () => {
    const h = otelHarness()
    const startSpan = vi.spyOn(ProxyTracer.prototype, 'startSpan')
    const gate = retryingGate()
    const stop = instrument(gate, { meterProvider: h.meterProvider })
    await gate.run(ask('x'))
    stop()
    expect(startSpan).not.toHaveBeenCalled()
    expect(h.spans()).toEqual([])
    const attempts = await h.points('reliability_gate.attempts')
    expect((attempts[0]?.value as { sum: number } | undefined)?.sum).toBe(2)
    expect((await h.points('reliability_gate.validation_failures'))[0]?.value).toBe(1)
  })
})

describe('instrument() with a tracer that records nothing', () => {
  it('starts one span per run and none per attempt', async () => {
    const started: string[] = []
    const tracer = {
      startSpan: (name: string) => {
        started.push(name)
        return trace.wrapSpanContext(INVALID_SPAN_CONTEXT)
      },
    } as unknown as Tracer
    const gate = retryingGate(2)
    const stop = instrument(gate, { tracerProvider: { getTracer: () => tracer } })
    await gate.run(ask('a'))
    await gate.run(ask('b'))
    expect(listened(gate)).toEqual([])
    stop()
    expect(started).toEqual(['invoke_workflow reliability-gate', 'invoke_workflow reliability-gate'])
  })

  it('reports a sampled run in full between runs sampled out', async () => {
    let root = 0
    const h = otelHarness(roots(() => ++root % 2 === 0))
    const gate = retryingGate(5)
    const stop = instrument(gate, { tracerProvider: h.tracerProvider })
    for (const runId of ['one', 'two', 'three', 'four', 'five']) await gate.run(ask(runId), { runId })
    // The last run was sampled out, and no run records: the per-attempt listeners are off again.
    expect(listened(gate)).toEqual([])
    stop()
    const spans = h.spans()
    const sampled = spans.filter((s) => parentOf(s) === undefined)
    expect(sampled.map((s) => s.attributes['reliability_gate.run_id'])).toEqual(['two', 'four'])
    for (const r of sampled) expect(childrenOf(spans, r).map((s) => s.attributes['reliability_gate.attempt'])).toEqual([1, 2])
    expect(spans).toHaveLength(6)
  })

  it('subscribes its per-attempt listeners once for back-to-back recorded runs', async () => {
    const h = otelHarness()
    const gate = retryingGate(3)
    const on = vi.spyOn(gate, 'on')
    const stop = instrument(gate, { tracerProvider: h.tracerProvider })
    await gate.run(ask('one'))
    const afterFirst = on.mock.calls.length
    await gate.run(ask('two'))
    await gate.run(ask('three'))
    expect(on.mock.calls.length).toBe(afterFirst)
    expect(listened(gate)).toEqual(PER_ATTEMPT.filter((name) => name !== 'retry'))
    stop()
    expect(h.spans().filter((s) => parentOf(s) === undefined)).toHaveLength(3)
  })

  it('reports only the sampled one of two interleaved runs', async () => {
    const h = otelHarness(roots((_, attributes) => attributes['reliability_gate.run_id'] === 'traced'))
    let release: () => void = () => {}
    const gate = createGate({
      providers: scripted([
        // The traced run's first answer waits until the quiet run has started: their attempts interleave.
        () => new Promise((resolve) => (release = () => resolve('{"bad": true}'))),
        () => (release(), '{"bad": true}'),
        validRefundJson,
        validRefundJson,
      ]),
      outputSchema: Refund,
      postDecide: strictOutputRules(3),
    })
    const stop = instrument(gate, { tracerProvider: h.tracerProvider })
    const [traced, quiet] = await Promise.all([gate.run(ask('a'), { runId: 'traced' }), gate.run(ask('b'), { runId: 'quiet' })])
    stop()
    expect([traced.attempts.length, quiet.attempts.length]).toEqual([2, 2])
    const spans = h.spans()
    expect(spans.map((s) => s.attributes['reliability_gate.run_id'])).toEqual(['traced', 'traced', 'traced'])
    const root = spans.find((s) => parentOf(s) === undefined)!
    expect(childrenOf(spans, root).map((s) => s.attributes['reliability_gate.attempt'])).toEqual([1, 2])
  })

  it('gives an agent run sampled out no span, its model calls included', async () => {
    const h = otelHarness(roots((name) => !name.startsWith('invoke_agent')))
    const agent = Agent.create({ provider: scripted(['{"orderId": 42}', validRefundJson, validRefundJson]), model: 'm', name: 'quiet' })
      .outputSchema(Refund)
      .reliability({ postDecide: strictOutputRules(3) })
      .build()
    const stop = instrument(agent, { tracerProvider: h.tracerProvider })
    await agent.run('one')
    await agent.run('two')
    expect(listened(agent)).toEqual([])
    stop()
    expect(h.spans()).toEqual([])
  })
})
