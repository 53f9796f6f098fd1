import { metrics, trace, type MeterProvider, type TracerProvider } from '@opentelemetry/api'
import { type EventSource, hubOf } from '../events/event-source.ts'
import { typeName } from '../model/describe-value.ts'
import { option, optionsContract } from '../model/options-contract.ts'
import { messageOf } from '../model/message-of.ts'
import { assertMethods, assertNonEmptyString, optionsObject } from '../model/options-object.ts'
import { boundedName } from './bounded-text.ts'
import { eventHandlers } from './event-handlers.ts'
import { gateMetrics } from './gate-metrics.ts'
import { tracerMayRecord } from './noop-telemetry.ts'
import { RunListeners } from './run-listeners.ts'
import { RunSpans } from './run-spans.ts'
import { OtelErrors } from './otel-errors.ts'

/** Options of {@link instrument}. */
export interface InstrumentOptions {
  /** Where spans go. @default the global tracer provider (`trace.getTracerProvider()`) */
  readonly tracerProvider?: TracerProvider
  /** Where metrics go. @default the global meter provider (`metrics.getMeterProvider()`) */
  readonly meterProvider?: MeterProvider
  /**
   * Put prompts, raw outputs and tool arguments and results on spans (`gen_ai.input.messages`,
   * `gen_ai.output.messages`, ...). Off by default: they may hold personal data.
   * @default false
   */
  readonly captureContent?: boolean
  /** The workflow name of a plain gate run's root span (`invoke_workflow {name}`). @default 'reliability-gate' */
  readonly name?: string
}

const SCOPE = 'reliability-gate'

/**
 * Reports a gate's or an agent's runs to OpenTelemetry, following the GenAI semantic conventions,
 * from its public events only. Returns the function that stops it (open spans are ended).
 *
 * Spans: one root per run (`invoke_agent {agent}` for an agent run, `invoke_workflow {name}` for a
 * plain gate run), one `chat {model}` child per attempt (provider, model, token usage, finish
 * reasons, `error.type`, the decision and the deciding rule as `reliability_gate.*` attributes, a
 * `validation_failed` span event with stage and path), and one `execute_tool {tool}` per logical tool
 * call (argument retries are `chat` spans under it). Metrics: `gen_ai.client.token.usage`,
 * `gen_ai.client.operation.duration`, `reliability_gate.validation_failures` (by stage and model),
 * `reliability_gate.attempts` per gate run, `reliability_gate.retries`, `reliability_gate.fail_fast`
 * (by kind), `reliability_gate.cost` (USD) and `reliability_gate.drift` (threshold crossings).
 *
 * What it costs: each run decides as it starts. A run whose root span does not record (no SDK
 * registered, or sampled out) gets no other span, and with no SDK registered no span at all. With
 * the API's no-op meter as well, `instrument()` listens only to the start of runs while none records,
 * so the gate builds no per-attempt event for it. An SDK tracer provider registered globally after
 * `instrument()` is used from the next run on; a meter provider must be registered before (the
 * metrics API of 1.x has no proxy: the meter `instrument()` got is kept).
 *
 * @example
 * const stop = instrument(agent, { tracerProvider, meterProvider })
 * await agent.run('refund order #42')
 * stop()
 */
export function instrument(source: EventSource, given?: InstrumentOptions): () => void {
  if (typeof source !== 'object' || source === null || typeof source.on !== 'function') {
    throw new TypeError('instrument: expected a gate or an agent (something with on())')
  }
  const options = checkOptions(given)
  const errors = new OtelErrors(hubOf(source))
  const onError = errors.report
  const tracerProvider = options.tracerProvider ?? trace.getTracerProvider()
  const tracer = setUp('tracerProvider.getTracer()', () => tracerProvider.getTracer(SCOPE))
  if (typeof tracer !== 'object' || tracer === null || typeof tracer.startSpan !== 'function') {
    throw new TypeError('instrument: tracerProvider.getTracer() must return a Tracer (with startSpan())')
  }
  const m = setUp('meterProvider', () => gateMetrics(options.meterProvider ?? metrics.getMeterProvider(), SCOPE, onError))
  const spans = new RunSpans(tracer, onError)
  const listeners = new RunListeners(source, errors)
  const { always, perRun } = eventHandlers({
    spans,
    metrics: m,
    mayRecord: tracerMayRecord(tracerProvider, tracer, SCOPE, onError),
    content: options.captureContent === true,
    workflow: boundedName(options.name ?? SCOPE),
    follow: (anyRecording) => listeners.follow(anyRecording),
  })
  // Metrics are recorded for every run: with a meter, every listener stays on.
  listeners.start(always, perRun, m !== undefined)
  let stopped = false
  return () => {
    if (stopped) return
    stopped = true
    listeners.stop()
    spans.closeAll()
  }
}

/** The options of {@link instrument}, declared once (the providers' methods are checked below, by name). */
export const INSTRUMENT = optionsContract<InstrumentOptions>('instrument', {
  tracerProvider: option.any(),
  meterProvider: option.any(),
  captureContent: option.any(),
  name: option.any(),
})

function checkOptions(given: InstrumentOptions | undefined): InstrumentOptions {
  const options = INSTRUMENT.check(optionsObject(given, 'instrument'))
  if (options.tracerProvider !== undefined) assertMethods(options.tracerProvider, ['getTracer'], 'instrument: tracerProvider', 'a TracerProvider')
  if (options.meterProvider !== undefined) assertMethods(options.meterProvider, ['getMeter'], 'instrument: meterProvider', 'a MeterProvider')
  if (options.captureContent !== undefined && typeof options.captureContent !== 'boolean') {
    throw new TypeError(`instrument: captureContent must be a boolean, got ${typeName(options.captureContent)}`)
  }
  if (options.name !== undefined) assertNonEmptyString(options.name, 'instrument: name')
  return options
}

// A provider that throws while instrument() sets up throws to its caller, saying which one.
function setUp<T>(what: string, make: () => T): T {
  try {
    return make()
  } catch (error) {
    throw new Error(`instrument: ${what} threw: ${messageOf(error)}`, { cause: error })
  }
}
