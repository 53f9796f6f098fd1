import type { Attributes, Counter, Histogram, MeterProvider } from '@opentelemetry/api'
import { METRIC } from './semconv.ts'

/** The instruments `instrument()` records to, created once per instrumentation. */
export interface GateMetrics {
  readonly tokenUsage: Histogram
  readonly operationDuration: Histogram
  readonly validationFailures: Counter
  readonly attempts: Histogram
  readonly retries: Counter
  readonly failFast: Counter
  readonly cost: Counter
  readonly drift: Counter
}

/** Creates the instruments on a meter of `provider`. */
export function gateMetrics(provider: MeterProvider, name: string): GateMetrics {
  const meter = provider.getMeter(name)
  return {
    tokenUsage: meter.createHistogram(METRIC.tokenUsage, {
      description: 'Input and output tokens of each model call, failed attempts included',
      unit: '{token}',
      advice: { explicitBucketBoundaries: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864] },
    }),
    operationDuration: meter.createHistogram(METRIC.operationDuration, {
      description: 'Duration of each model call',
      unit: 's',
      advice: { explicitBucketBoundaries: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92] },
    }),
    validationFailures: meter.createCounter(METRIC.validationFailures, {
      description: 'Model outputs that failed validation, by stage and model',
      unit: '{failure}',
    }),
    attempts: meter.createHistogram(METRIC.attempts, {
      description: 'Attempts per gate run',
      unit: '{attempt}',
      advice: { explicitBucketBoundaries: [1, 2, 3, 4, 5, 6, 8, 10, 15, 20] },
    }),
    retries: meter.createCounter(METRIC.retries, { description: 'Retries decided by the gate (same or next provider)', unit: '{retry}' }),
    failFast: meter.createCounter(METRIC.failFast, { description: 'Runs that failed fast, by kind', unit: '{run}' }),
    cost: meter.createCounter(METRIC.cost, { description: 'Cost of model calls in USD, failed attempts included', unit: 'USD' }),
    drift: meter.createCounter(METRIC.drift, { description: 'Drift threshold crossings, by signal, state, provider and model', unit: '{crossing}' }),
  }
}

/** Attributes without the keys whose value is undefined (OpenTelemetry drops them anyway). */
export function defined(attributes: Record<string, string | number | boolean | undefined>): Attributes {
  const out: Attributes = {}
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) out[key] = value
  return out
}
