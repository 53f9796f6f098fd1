import { createNoopMeter, ProxyTracer, type ProxyTracerProvider, type Tracer, type TracerProvider } from '@opentelemetry/api'
import type { OnOtelError } from './safe-span.ts'

/** Answers whether a tracer may record a run started now (false only when it is known to record nothing). */
export type TracerMayRecord = () => boolean

const MAY_RECORD: TracerMayRecord = () => true

/**
 * Whether `tracer` (got from `provider.getTracer(scope)`) may record, asked once per run, cheaply.
 *
 * With no SDK registered, `trace.getTracerProvider()` is the API's `ProxyTracerProvider` and its
 * tracers are `ProxyTracer`s that start no-op spans until an SDK is registered, even after the
 * tracer was made (`trace.setGlobalTracerProvider()` gives the proxy its delegate). While
 * `provider.getDelegateTracer(scope)` answers `undefined` the tracer is known to record nothing, and
 * a run needs not even start its root span; once a delegate appears it is the SDK's to say, per run,
 * through the root span's `isRecording()`. Any other tracer may record. A provider that throws is
 * reported to `onError` (once: it is not asked again).
 */
export function tracerMayRecord(provider: TracerProvider, tracer: Tracer, scope: string, onError?: OnOtelError): TracerMayRecord {
  const proxy = provider as Partial<ProxyTracerProvider>
  if (!(tracer instanceof ProxyTracer) || typeof proxy.getDelegateTracer !== 'function') return MAY_RECORD
  let waiting = true
  return () => {
    if (!waiting) return true
    try {
      waiting = proxy.getDelegateTracer?.(scope) === undefined
    } catch (error) {
      // A provider that cannot say is asked no more: its tracer's spans decide.
      waiting = false
      onError?.('tracerProvider.getDelegateTracer', error)
    }
    return !waiting
  }
}

const NOOP_METER = createNoopMeter()
// The API's no-op meter answers one shared instrument of each kind: those are what "no-op" means here.
const NOOP_INSTRUMENTS: ReadonlySet<unknown> = new Set([NOOP_METER.createHistogram(''), NOOP_METER.createCounter('')])

/**
 * True when `instrument` is the API's no-op histogram or counter: what `metrics.getMeterProvider()`
 * gives with no SDK registered (the metrics API of 1.x has no proxy: the meter got then stays no-op).
 * A no-op instrument of another copy of the API is not recognised, and is recorded to as any other.
 */
export function isNoopInstrument(instrument: unknown): boolean {
  return NOOP_INSTRUMENTS.has(instrument)
}
