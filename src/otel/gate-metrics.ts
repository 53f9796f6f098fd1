import type { Attributes, MeterProvider } from '@opentelemetry/api'
import type { OnOtelError } from './safe-span.ts'
import { boundedName } from './bounded-text.ts'
import { isNoopInstrument } from './noop-telemetry.ts'
import { METRIC } from './semconv.ts'

/** A histogram as `instrument()` records to it: behind the user-code boundary, never throwing. */
export interface SafeHistogram {
  record(value: number, attributes: Attributes): void
}

/** A counter as `instrument()` adds to it: behind the user-code boundary, never throwing. */
export interface SafeCounter {
  add(value: number, attributes: Attributes): void
}

/** The instruments `instrument()` records to, created once per instrumentation. */
export interface GateMetrics {
  readonly tokenUsage: SafeHistogram
  readonly operationDuration: SafeHistogram
  readonly validationFailures: SafeCounter
  readonly attempts: SafeHistogram
  readonly retries: SafeCounter
  readonly failFast: SafeCounter
  readonly cost: SafeCounter
  readonly drift: SafeCounter
}

/**
 * Creates the instruments on a meter of `provider` (a meter that throws here throws to the caller of
 * `instrument()`); an instrument that throws when it records is reported through `onError` and never
 * reaches the run. `undefined` when every instrument is the API's no-op one (no SDK registered, see
 * {@link isNoopInstrument}): then nothing is recorded, and no attributes are built for it.
 */
export function gateMetrics(provider: MeterProvider, name: string, onError: OnOtelError): GateMetrics | undefined {
  const meter = provider.getMeter(name)
  const made: unknown[] = []
  const histogram = (h: { record(value: number, attributes?: Attributes): void }): SafeHistogram => {
    made.push(h)
    return { record: (value, attributes) => guarded(onError, 'histogram.record', () => h.record(value, attributes)) }
  }
  const counter = (c: { add(value: number, attributes?: Attributes): void }): SafeCounter => {
    made.push(c)
    return { add: (value, attributes) => guarded(onError, 'counter.add', () => c.add(value, attributes)) }
  }
  const instruments: GateMetrics = {
    tokenUsage: histogram(
      meter.createHistogram(METRIC.tokenUsage, {
        description: 'Input and output tokens of each model call, failed attempts included',
        unit: '{token}',
        advice: { explicitBucketBoundaries: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864] },
      }),
    ),
    operationDuration: histogram(
      meter.createHistogram(METRIC.operationDuration, {
        description: 'Duration of each model call',
        unit: 's',
        advice: { explicitBucketBoundaries: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92] },
      }),
    ),
    validationFailures: counter(
      meter.createCounter(METRIC.validationFailures, {
        description: 'Model outputs that failed validation, by stage and model',
        unit: '{failure}',
      }),
    ),
    attempts: histogram(
      meter.createHistogram(METRIC.attempts, {
        description: 'Attempts per gate run',
        unit: '{attempt}',
        advice: { explicitBucketBoundaries: [1, 2, 3, 4, 5, 6, 8, 10, 15, 20] },
      }),
    ),
    retries: counter(meter.createCounter(METRIC.retries, { description: 'Retries decided by the gate (same or next provider)', unit: '{retry}' })),
    failFast: counter(meter.createCounter(METRIC.failFast, { description: 'Runs that failed fast, by kind', unit: '{run}' })),
    cost: counter(meter.createCounter(METRIC.cost, { description: 'Cost of model calls in USD, failed attempts included', unit: 'USD' })),
    drift: counter(meter.createCounter(METRIC.drift, { description: 'Drift threshold crossings, by signal, state, provider and model', unit: '{crossing}' })),
  }
  return made.every(isNoopInstrument) ? undefined : instruments
}

function guarded(onError: OnOtelError, what: string, call: () => void): void {
  try {
    call()
  } catch (error) {
    onError(what, error)
  }
}

/**
 * Attributes without the keys whose value is undefined (OpenTelemetry drops them anyway), strings
 * bounded as names (see {@link boundedName}): a model-invented name cannot make an unbounded attribute.
 */
export function defined(attributes: Record<string, string | number | boolean | undefined>): Attributes {
  const out: Attributes = {}
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = typeof value === 'string' ? boundedName(value) : value
  return out
}
