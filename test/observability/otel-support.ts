import {
  InMemoryMetricExporter,
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
  type Histogram,
} from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type Sampler } from '@opentelemetry/sdk-trace-base'

/** An SDK tracer and meter provider over in-memory exporters (every span sampled, unless `sampler` says). */
export function otelHarness(sampler?: Sampler) {
  const spanExporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanExporter)], ...(sampler === undefined ? {} : { sampler }) })
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  // A long interval: metrics are collected on demand with forceFlush, never on a timer.
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 })
  const meterProvider = new MeterProvider({ readers: [reader] })
  return {
    tracerProvider,
    meterProvider,
    /** The options of `instrument()` that send to this harness. */
    providers: { tracerProvider, meterProvider },
    spans: (): ReadableSpan[] => spanExporter.getFinishedSpans(),
    /** The data points of one metric, after a flush. */
    async points(name: string): Promise<DataPoint<number | Histogram>[]> {
      await meterProvider.forceFlush()
      const found = metricExporter
        .getMetrics()
        .flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics))
        .filter((metric) => metric.descriptor.name === name)
      return (found.at(-1)?.dataPoints ?? []) as DataPoint<number | Histogram>[]
    },
    async shutdown(): Promise<void> {
      await tracerProvider.shutdown()
      await meterProvider.shutdown()
    },
  }
}

/** The parent span id of a span (SDK 2 names it `parentSpanContext`). */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId
}

/** The children of `parent` among `spans`, oldest first. */
export function childrenOf(spans: readonly ReadableSpan[], parent: ReadableSpan): ReadableSpan[] {
  return spans.filter((s) => parentOf(s) === parent.spanContext().spanId && s.spanContext().traceId === parent.spanContext().traceId)
}
