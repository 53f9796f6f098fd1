import { type Meter, type MeterProvider, ProxyTracer, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Agent, createGate, strictOutputRules } from '../../src/index.ts'
import { instrument } from '../../src/otel/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'
import { otelHarness } from './otel-support.ts'

const broke = new Error('telemetry broke')
const boom = (): never => {
  throw broke
}

/** The SDK's own tracer provider, its tracer's `startSpan` replaced by one that throws. */
function startSpanThrows(): TracerProvider {
  const { tracerProvider } = otelHarness()
  const tracer = tracerProvider.getTracer('x')
  tracer.startSpan = boom
  return { getTracer: () => tracer }
}

/** The SDK's own spans, one method of each replaced by one that throws. */
function spanMethodThrows(method: 'setAttributes' | 'setAttribute' | 'setStatus' | 'end' | 'addEvent'): TracerProvider {
  const { tracerProvider } = otelHarness()
  const tracer = tracerProvider.getTracer('x')
  const start = tracer.startSpan.bind(tracer)
  const wrapped: Tracer = {
    startSpan: (...args: Parameters<Tracer['startSpan']>): Span => {
      const span = start(...args)
      ;(span as unknown as Record<string, unknown>)[method] = boom
      return span
    },
    startActiveSpan: tracer.startActiveSpan.bind(tracer) as Tracer['startActiveSpan'],
  }
  return { getTracer: () => wrapped }
}

/** The SDK's own meter provider, the `record` and `add` of every instrument replaced by ones that throw. */
function instrumentsThrow(): MeterProvider {
  const { meterProvider } = otelHarness()
  return {
    getMeter: (...args: Parameters<MeterProvider['getMeter']>): Meter => {
      const meter = meterProvider.getMeter(...args)
      const createHistogram = meter.createHistogram.bind(meter)
      const createCounter = meter.createCounter.bind(meter)
      meter.createHistogram = (...a) => Object.assign(createHistogram(...a), { record: boom })
      meter.createCounter = (...a) => Object.assign(createCounter(...a), { add: boom })
      return meter
    },
  }
}

const retryingGate = () =>
  createGate({
    providers: scripted(['{"orderId": 42}', validRefundJson, '{"orderId": 42}', validRefundJson]),
    model: 'm',
    outputSchema: Refund,
    postDecide: strictOutputRules(3),
  })

afterEach(() => vi.restoreAllMocks())

describe('instrument with a tracer or meter that throws', () => {
  const cases = [
    ['startSpan', { tracerProvider: startSpanThrows() }],
    ['span.setAttributes', { tracerProvider: spanMethodThrows('setAttributes') }],
    ['span.setAttribute', { tracerProvider: spanMethodThrows('setAttribute') }],
    ['span.setStatus', { tracerProvider: spanMethodThrows('setStatus') }],
    ['span.end', { tracerProvider: spanMethodThrows('end') }],
    ['histogram.record and counter.add', { meterProvider: instrumentsThrow() }],
  ] as const

  it.each(cases)('reports %s as one listener_error per run, and every run succeeds', async (_what, options) => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const gate = retryingGate()
    const errors: { runId: string; event: string; error: unknown }[] = []
    gate.on('listener_error', (e) => errors.push(e))
    const stop = instrument(gate, options)
    const first = await gate.run(ask('x'))
    const second = await gate.run(ask('y'))
    stop()
    expect(first.value).toEqual(JSON.parse(validRefundJson))
    expect(second.attempts).toHaveLength(2)
    expect(errors.map((e) => e.runId)).toEqual([first.runId, second.runId])
    expect(errors.every((e) => e.error === broke && e.event !== '')).toBe(true)
  })

  it("names the agent run whose telemetry failed when the tracer's startSpan throws", async () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const agent = Agent.create({ provider: scripted(['Hello.']), name: 'a' }).build()
    const errors: { runId: string; event: string }[] = []
    agent.on('listener_error', (e) => errors.push(e))
    instrument(agent, { tracerProvider: startSpanThrows() })
    const result = await agent.runDetailed('hi')
    expect(result.text).toBe('Hello.')
    expect(errors).toEqual([expect.objectContaining({ runId: result.runId, event: 'agent_run_start' })])
  })

  it('reports a tracer provider that cannot say whether an SDK is registered, and records the run anyway', async () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const provider = { getTracer: (name: string) => new ProxyTracer(provider as never, name), getDelegateTracer: boom }
    const gate = retryingGate()
    const errors: { runId: string; event: string; error: unknown }[] = []
    gate.on('listener_error', (e) => errors.push(e))
    instrument(gate, { tracerProvider: provider })
    const result = await gate.run(ask('x'))
    expect(result.value).toEqual(JSON.parse(validRefundJson))
    expect(errors).toEqual([{ runId: result.runId, event: 'run_start', error: broke }])
  })

  it('still warns the process once, however many runs fail their telemetry', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const gate = retryingGate()
    instrument(gate, { tracerProvider: startSpanThrows(), meterProvider: instrumentsThrow() })
    await gate.run(ask('x'))
    await gate.run(ask('y'))
    expect(warn).toHaveBeenCalledTimes(1)
  })
})
