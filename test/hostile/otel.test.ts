import { spawnSync } from 'node:child_process'
import { resolve } from 'node:path'
import { ProxyTracer, type Meter, type MeterProvider, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Agent, createGate, isReliabilityFailFastError, strictOutputRules } from '../../src/index.ts'
import { hubOf, type EventSource } from '../../src/events/event-source.ts'
import { instrument } from '../../src/otel/index.ts'
import { scripted } from '../../src/providers/index.ts'
import { call, turn } from '../agent/tool-fixtures.ts'
import { otelHarness } from '../observability/otel-support.ts'
import { expectNoUnhandledRejections } from '../support/no-unhandled-rejections.ts'
import { ask, Refund, validRefundJson } from '../support/schemas.ts'

const CHILD = resolve(import.meta.dirname, 'fixtures/otel-child.ts')
const boom = () => {
  throw new Error('telemetry broke')
}

/** Every hostile run must settle well within this. */
const BOUND_MS = 2_000

async function within<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${BOUND_MS} ms`)), BOUND_MS)
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

/** A meter provider whose every instrument throws when it records. */
const throwingMeters: MeterProvider = {
  getMeter: () => new Proxy({}, { get: () => () => ({ record: boom, add: boom }) }) as Meter,
}

/** The harness's tracer with each span's `method` replaced by one that throws. */
function spansThatThrowOn(h: ReturnType<typeof otelHarness>, method: 'setAttribute' | 'setAttributes' | 'end' | 'setStatus' | 'isRecording'): TracerProvider {
  return {
    getTracer: (name: string) => {
      const tracer = h.tracerProvider.getTracer(name)
      return {
        startSpan: (...args: Parameters<Tracer['startSpan']>) => {
          const span = tracer.startSpan(...args) as Span & Record<string, unknown>
          const real = span[method] as (...a: unknown[]) => unknown
          span[method] = (...a: unknown[]) => {
            if (method === 'end') real.apply(span, a)
            return boom()
          }
          return span
        },
      } as unknown as Tracer
    },
  }
}

const retryingGate = () =>
  createGate({ providers: scripted(['{"orderId": 42}', validRefundJson]), model: 'm', outputSchema: Refund, postDecide: strictOutputRules(3) })

afterEach(() => vi.restoreAllMocks())
expectNoUnhandledRejections()

describe('instrument() behind the user-code boundary', () => {
  it('ends the root span when the meter’s instruments throw, and the run’s result is unaffected', async () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const h = otelHarness()
    const gate = retryingGate()
    const stop = instrument(gate, { tracerProvider: h.tracerProvider, meterProvider: throwingMeters })
    const result = await within(gate.run(ask('x')))
    expect(result.value).toBeDefined()
    expect(h.spans().filter((s) => s.name === 'invoke_workflow reliability-gate')).toHaveLength(1)
    expect(h.spans().filter((s) => s.name === 'chat m')).toHaveLength(2)
    stop()
  })

  it('reports a throwing meter once, as a process warning', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const gate = retryingGate()
    instrument(gate, { meterProvider: throwingMeters })
    await within(gate.run(ask('x')))
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/^reliability-gate instrument: .* threw \(telemetry broke\); the run goes on/)
  })

  it('runs unaffected when the tracer’s startSpan throws, and tries it once per run', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const startSpan = vi.fn(boom)
    const gate = retryingGate()
    instrument(gate, { tracerProvider: { getTracer: () => ({ startSpan }) as unknown as Tracer } })
    const result = await within(gate.run(ask('x')))
    expect(result.attempts).toHaveLength(2)
    expect(startSpan).toHaveBeenCalledTimes(1)
    expect(hubOf(gate)?.has('attempt_start')).toBe(false)
    expect(warn).toHaveBeenCalledTimes(1)
  })

  it('runs unaffected when the proxy tracer provider cannot say whether an SDK is registered', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const provider = { getTracer: (name: string) => new ProxyTracer(provider as never, name), getDelegateTracer: boom }
    const gate = retryingGate()
    instrument(gate, { tracerProvider: provider })
    const result = await within(gate.run(ask('x')))
    expect(result.value).toEqual(JSON.parse(validRefundJson))
    expect(warn).toHaveBeenCalledTimes(1)
  })

  it('runs unaffected when the source refuses the per-attempt listeners a recording run asks for', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const h = otelHarness()
    const gate = retryingGate()
    // instrument() subscribes fine; any subscription after it (from inside run_start) throws.
    let refuse = false
    const source: EventSource = { on: (name, listener) => (refuse ? boom() : gate.on(name, listener)), events$: gate.events$ }
    const stop = instrument(source, { tracerProvider: h.tracerProvider })
    refuse = true
    const result = await within(gate.run(ask('x')))
    expect(result.attempts).toHaveLength(2)
    expect(warn).toHaveBeenCalledTimes(1)
    stop()
    expect(h.spans().map((s) => s.name)).toEqual(['invoke_workflow reliability-gate'])
  })

  it('runs unaffected when the tracer’s startSpan returns no span', async () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const gate = retryingGate()
    instrument(gate, { tracerProvider: { getTracer: () => ({ startSpan: () => undefined }) as unknown as Tracer } })
    expect((await within(gate.run(ask('x')))).attempts).toHaveLength(2)
  })

  it.each(['setAttribute', 'setAttributes', 'setStatus', 'end', 'isRecording'] as const)('ends every span when a span’s %s throws', async (method) => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined)
    const h = otelHarness()
    const gate = createGate({ providers: scripted(['not json', 'still not json']), outputSchema: Refund, postDecide: strictOutputRules(2) })
    instrument(gate, { tracerProvider: spansThatThrowOn(h, method), meterProvider: h.meterProvider })
    const error = await within(gate.run(ask('x'))).catch((e: unknown) => e)
    expect(isReliabilityFailFastError(error)).toBe(true)
    expect(
      h
        .spans()
        .map((s) => s.name)
        .sort(),
    ).toEqual(['chat', 'chat', 'invoke_workflow reliability-gate'])
  })

  it('keeps the process clean when the tracer and the meter throw (child process)', () => {
    const out = spawnSync(process.execPath, [CHILD], { encoding: 'utf8', timeout: 20_000 })
    expect(out.stderr).not.toMatch(/uncaughtException|unhandledRejection/)
    expect(out.status).toBe(0)
    expect(out.stdout).toBe('ok 2 attempts')
  })
})

describe('instrument() with runs that share a runId', () => {
  it('gives two concurrent gate runs with the same runId two root spans, both ended', async () => {
    const h = otelHarness()
    const gate = createGate({ providers: scripted([validRefundJson, validRefundJson]), outputSchema: Refund })
    instrument(gate, h.providers)
    await Promise.all([gate.run(ask('a'), { runId: 'same' }), gate.run(ask('b'), { runId: 'same' })])
    const roots = h.spans().filter((s) => s.name === 'invoke_workflow reliability-gate')
    expect(roots).toHaveLength(2)
    expect(roots.every((s) => s.attributes['reliability_gate.run_id'] === 'same')).toBe(true)
    expect(h.spans().filter((s) => s.name === 'chat')).toHaveLength(2)
  })

  it('gives two concurrent agent runs with the same runId two invoke_agent spans, both ended', async () => {
    const h = otelHarness()
    const agent = Agent.create({ provider: scripted(['one', 'two']), model: 'm', name: 'twin' }).build()
    const stop = instrument(agent, h.providers)
    await Promise.all([agent.run('a', { runId: 'same' }), agent.run('b', { runId: 'same' })])
    expect(h.spans().filter((s) => s.name === 'invoke_agent twin')).toHaveLength(2)
    expect(h.spans().filter((s) => s.name === 'invoke_workflow reliability-gate')).toHaveLength(0)
    stop()
  })
})

describe('instrument() attributes from the model and the caller', () => {
  async function rootOf(metadata: Record<string, unknown>) {
    const h = otelHarness()
    const gate = createGate({ providers: scripted([validRefundJson]), outputSchema: Refund })
    instrument(gate, h.providers)
    await gate.run(ask('x'), { metadata })
    return h.spans().find((s) => s.name.startsWith('invoke_workflow'))
  }

  it('escapes newlines in a metadata value', async () => {
    const root = await rootOf({ tenant: 'acme\nforged: true' })
    expect(root?.attributes['reliability_gate.metadata.tenant']).toBe('acme\\nforged: true')
  })

  it('bounds a huge metadata value', async () => {
    const root = await rootOf({ blob: 'x'.repeat(100_000) })
    expect(String(root?.attributes['reliability_gate.metadata.blob']).length).toBe(256)
  })

  it('bounds and escapes a huge metadata key', async () => {
    const root = await rootOf({ [`k\n${'y'.repeat(1000)}`]: 1 })
    const keys = Object.keys(root?.attributes ?? {}).filter((k) => k.startsWith('reliability_gate.metadata.'))
    expect(keys).toHaveLength(1)
    expect(keys[0]?.length).toBeLessThanOrEqual('reliability_gate.metadata.'.length + 64)
    expect(keys[0]).not.toContain('\n')
  })

  it('puts at most 32 metadata keys on a span', async () => {
    const root = await rootOf(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i])))
    expect(Object.keys(root?.attributes ?? {}).filter((k) => k.startsWith('reliability_gate.metadata.'))).toHaveLength(32)
  })

  it('leaves out a metadata getter that throws and keeps the run’s spans', async () => {
    const metadata = Object.defineProperty({ tenant: 'acme' }, 'secret', { enumerable: true, get: boom })
    const root = await rootOf(metadata)
    expect(root?.attributes['reliability_gate.metadata.tenant']).toBe('acme')
    expect(root?.attributes['reliability_gate.metadata.secret']).toBeUndefined()
  })

  it('bounds a model-invented tool name in the span name and attributes', async () => {
    const h = otelHarness()
    const name = `evil\n${'t'.repeat(5000)}`
    const agent = Agent.create({ provider: scripted([turn(call(name, {})), 'done']), model: 'm', name: 'a' }).build()
    instrument(agent, h.providers)
    await agent.run('go').catch(() => undefined)
    const span = h.spans().find((s) => s.name.startsWith('execute_tool'))
    expect(span?.name.length).toBeLessThanOrEqual('execute_tool '.length + 128)
    expect(span?.name).not.toContain('\n')
    expect(String(span?.attributes['gen_ai.tool.name']).length).toBe(256)
  })

  it('bounds captured content', async () => {
    const h = otelHarness()
    const gate = createGate({ providers: scripted(['x'.repeat(200_000), validRefundJson]), outputSchema: Refund, postDecide: strictOutputRules(2) })
    instrument(gate, { ...h.providers, captureContent: true })
    await gate.run(ask('x'))
    const chat = h.spans().find((s) => s.name === 'chat')
    expect(String(chat?.attributes['gen_ai.output.messages']).length).toBeLessThan(17_000)
    const event = chat?.events.find((e) => e.name === 'validation_failed')
    expect(String(event?.attributes?.['reliability_gate.validation.raw_output'])).toMatch(/…\[183616 more characters\]$/)
  })
})

describe('instrument() options', () => {
  const gate = createGate({ providers: scripted(['x']) })
  it.each([
    ['a tracerProvider without getTracer', { tracerProvider: {} }, 'instrument: tracerProvider must be a TracerProvider, missing getTracer()'],
    ['a meterProvider without getMeter', { meterProvider: {} }, 'instrument: meterProvider must be a MeterProvider, missing getMeter()'],
    ['a tracerProvider that is a string', { tracerProvider: 'otel' }, 'instrument: tracerProvider must be a TracerProvider'],
    ['a misspelled option', { tracerprovider: {} }, 'instrument: unknown option "tracerprovider"'],
    ['a captureContent that is no boolean', { captureContent: 'yes' }, 'instrument: captureContent must be a boolean, got string'],
    ['an empty name', { name: '' }, 'instrument: name must be a non-empty string, got ""'],
    ['a tracer that is no Tracer', { tracerProvider: { getTracer: () => ({}) } }, 'instrument: tracerProvider.getTracer() must return a Tracer'],
  ])('refuses %s with a TypeError naming instrument and the option', (_, options, message) => {
    expect(() => instrument(gate, options as never)).toThrow(TypeError)
    expect(() => instrument(gate, options as never)).toThrow(message)
  })

  it.each([
    ['getTracer', { tracerProvider: { getTracer: boom } }, 'instrument: tracerProvider.getTracer() threw: telemetry broke'],
    ['getMeter', { meterProvider: { getMeter: boom } }, 'instrument: meterProvider threw: telemetry broke'],
    ['createHistogram', { meterProvider: { getMeter: () => ({ createHistogram: boom }) } }, 'instrument: meterProvider threw: telemetry broke'],
  ])('says which provider threw when %s throws while setting up', (_, options, message) => {
    expect(() => instrument(gate, options as never)).toThrow(message)
  })
})
