// What `instrument(gate)` adds to one `gate.run` (a stub provider answering valid JSON at once), per
// OpenTelemetry setup, on a plain gate (a schema) and on the production configuration of the bench
// without its `instrument()`. Each measurement runs in its own child process (registering an SDK is
// global); the rounds alternate the setups and the fastest median of each is kept, with the fastest
// batch (mitata's min, the figure a loaded machine disturbs least), as this machine is shared.
//
//   node --expose-gc --max-semi-space-size=64 bench/instrument-cost.ts [rounds=3]
//
// Setups: no instrument(); instrument() on the API with no SDK (the no-op tracer and meter);
// instrument() with an SDK registered before it; instrument() with an SDK registered after it (spans
// only: the meter instrument() got is the no-op one).
import { spawnSync } from 'node:child_process'
import { metrics, trace } from '@opentelemetry/api'
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { createGate, type ModelResponse, type Provider } from '../src/index.ts'
import { instrument } from '../src/otel/index.ts'
import { PRODUCTION_MODEL, productionReliability } from './contenders/production.ts'
import { Refund, USER_MESSAGE } from './scenarios.ts'
import { heapPerCall, median, timeCall } from './support/measure.ts'

const GATES = ['plain', 'production'] as const
const SETUPS = ['none', 'noop', 'sdk-before', 'sdk-after'] as const
type GateKind = (typeof GATES)[number]
type Setup = (typeof SETUPS)[number]

const answer: ModelResponse = { content: '{"action":"refund","amount":50}', toolCalls: [], usage: { inputTokens: 10, outputTokens: 5 }, stopReason: 'end' }
const stub = (name: string): Provider => ({ name, complete: () => Promise.resolve(answer) })
const request = { messages: [{ role: 'user' as const, content: USER_MESSAGE }] }

function registerSdk(): void {
  const spans = new InMemorySpanExporter()
  // An exporter that kept every span would grow the heap: forget them as they come.
  spans.export = (_, done) => done({ code: 0 })
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }))
  const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 })
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))
}

async function measureOne(kind: GateKind, setup: Setup): Promise<void> {
  if (setup === 'sdk-before') registerSdk()
  const gate =
    kind === 'plain'
      ? createGate({ providers: stub('primary'), model: 'm', outputSchema: Refund })
      : createGate({ providers: [stub('primary'), stub('secondary')], model: PRODUCTION_MODEL, outputSchema: Refund, ...productionReliability() })
  if (kind === 'production') gate.on('validation_failed', () => {})
  if (setup !== 'none') instrument(gate)
  if (setup === 'sdk-after') registerSdk()
  const call = () => gate.run(request)
  const time = await timeCall(call, 1000)
  const bytes = await heapPerCall(call, 500, 30)
  process.stdout.write(JSON.stringify({ us: time.medianNs / 1000, minUs: time.minNs / 1000, bytes }))
}

if (process.argv[2] !== undefined && process.argv[3] !== undefined) await measureOne(process.argv[2] as GateKind, process.argv[3] as Setup)
else {
  const rounds = Number(process.argv[2] ?? 3)
  const seen = new Map<string, { us: number[]; minUs: number[]; bytes: number[] }>()
  for (let round = 0; round < rounds; round++) {
    for (const kind of GATES) {
      for (const setup of SETUPS) {
        const args = ['--expose-gc', '--max-semi-space-size=64', import.meta.filename, kind, setup]
        const out = spawnSync(process.execPath, args, { encoding: 'utf8' })
        if (out.status !== 0) throw new Error(`${kind} ${setup}: ${out.stderr}`)
        const { us, minUs, bytes } = JSON.parse(out.stdout) as { us: number; minUs: number; bytes: number | undefined }
        const key = `${kind} ${setup}`
        const s = seen.get(key) ?? { us: [], minUs: [], bytes: [] }
        s.us.push(us)
        s.minUs.push(minUs)
        if (bytes !== undefined) s.bytes.push(bytes)
        seen.set(key, s)
      }
    }
  }
  for (const [key, s] of seen) {
    const us = Math.min(...s.us).toFixed(2)
    const minUs = Math.min(...s.minUs).toFixed(2)
    const bytes = median(s.bytes)
    const heap = bytes === undefined ? '?' : Math.round(bytes).toString()
    console.log(`${key.padEnd(22)} median ${us.padStart(7)} µs/run  min ${minUs.padStart(7)} µs/run  ${heap.padStart(7)} B/run`)
  }
}
