import { metrics, SpanStatusCode, trace, type MeterProvider, type TracerProvider } from '@opentelemetry/api'
import type { GateEventMap, GateEventName } from '../events/event-map.ts'
import type { EventSource } from '../events/event-source.ts'
import { inputMessages, jsonAttribute, outputMessages } from './content.ts'
import { typeName } from '../model/describe-value.ts'
import { refuseUnknownOptions } from '../model/known-options.ts'
import { messageOf } from '../model/message-of.ts'
import { assertMethods, assertNonEmptyString, optionsObject } from '../model/options-object.ts'
import { boundedContent, boundedName } from './bounded-text.ts'
import { defined, gateMetrics, type GateMetrics } from './gate-metrics.ts'
import type { OnOtelError } from './safe-span.ts'
import { RunSpans, tagAttributes } from './run-spans.ts'
import { ATTR, finishReason } from './semconv.ts'

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

type Handlers = { readonly [K in GateEventName]?: (e: GateEventMap[K]) => void }

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
  const onError = reportOnce()
  const tracer = setUp('tracerProvider.getTracer()', () => (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE))
  if (typeof tracer !== 'object' || tracer === null || typeof tracer.startSpan !== 'function') {
    throw new TypeError('instrument: tracerProvider.getTracer() must return a Tracer (with startSpan())')
  }
  const m = setUp('meterProvider', () => gateMetrics(options.meterProvider ?? metrics.getMeterProvider(), SCOPE, onError))
  const spans = new RunSpans(tracer, onError)
  const handlers = handlersFor(spans, m, options.captureContent === true, boundedName(options.name ?? SCOPE))
  const offs = Object.entries(handlers).map(([name, handler]) =>
    source.on(name as GateEventName, (e: unknown) => {
      // The last line of defence: whatever a handler meets, the run never sees it.
      try {
        ;(handler as (e: unknown) => void)(e)
      } catch (error) {
        onError(`the ${name} handler`, error)
      }
    }),
  )
  let stopped = false
  return () => {
    if (stopped) return
    stopped = true
    for (const off of offs) off()
    spans.closeAll()
  }
}

const OPTIONS = ['tracerProvider', 'meterProvider', 'captureContent', 'name'] as const satisfies readonly (keyof InstrumentOptions)[]

function checkOptions(given: InstrumentOptions | undefined): InstrumentOptions {
  const options = optionsObject(given, 'instrument')
  refuseUnknownOptions(options, OPTIONS, 'instrument')
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

// A tracer or meter that throws is reported once per instrumentation, as a process warning: the run goes on.
function reportOnce(): OnOtelError {
  let reported = false
  return (what, error) => {
    if (reported) return
    reported = true
    process.emitWarning(
      `reliability-gate instrument: ${what} threw (${messageOf(error)}); the run goes on, its telemetry may be incomplete. Further errors are not reported.`,
    )
  }
}

function handlersFor(spans: RunSpans, m: GateMetrics, content: boolean, workflow: string): Handlers {
  return {
    agent_run_start: (e) =>
      spans.open(e.runId, `invoke_agent ${boundedName(e.agent, 128)}`, defined({ [ATTR.operationName]: 'invoke_agent', [ATTR.agentName]: e.agent }), e, true),
    agent_run_end: (e) => {
      const root = spans.root(e.runId, true)
      root?.setAttributes(
        defined({
          [ATTR.inputTokens]: e.usage.inputTokens,
          [ATTR.outputTokens]: e.usage.outputTokens,
          [ATTR.costUsd]: e.costUsd,
          [ATTR.attempts]: e.attempts,
          [ATTR.turns]: e.turns,
          [ATTR.outcome]: e.outcome,
        }),
      )
      spans.close(e.runId, true, e.outcome === 'ok' ? undefined : e.kind)
    },
    run_start: (e) => {
      // A gate run inside an agent run is one of its model calls; any other gets its own root.
      if (!spans.isAgent(e.runId))
        spans.open(e.runId, `invoke_workflow ${workflow}`, { [ATTR.operationName]: 'invoke_workflow', [ATTR.workflowName]: workflow }, e, false)
    },
    run_end: (e) => {
      m.attempts.record(e.attempts, defined({ [ATTR.providerName]: e.provider, [ATTR.outcome]: e.outcome }))
      if (spans.isAgent(e.runId)) return
      spans.root(e.runId, false)?.setAttributes({
        [ATTR.inputTokens]: e.usage.inputTokens,
        [ATTR.outputTokens]: e.usage.outputTokens,
        [ATTR.costUsd]: e.costUsd,
        [ATTR.attempts]: e.attempts,
        [ATTR.outcome]: e.outcome,
      })
      spans.close(e.runId, false, e.outcome === 'ok' ? undefined : e.kind)
    },
    attempt_start: (e) => {
      const span = spans.startChat(
        e.runId,
        e.model === undefined ? 'chat' : `chat ${boundedName(e.model, 128)}`,
        defined({
          [ATTR.operationName]: 'chat',
          [ATTR.providerName]: e.provider,
          [ATTR.requestModel]: e.model,
          [ATTR.attempt]: e.attempt,
          [ATTR.runId]: e.runId,
          ...tagAttributes(e),
        }),
      )
      if (content) span?.setAttribute(ATTR.inputMessages, boundedContent(inputMessages(e.request.system, e.request.messages)))
    },
    attempt_end: (e) => {
      const base = defined({ [ATTR.operationName]: 'chat', [ATTR.providerName]: e.provider, [ATTR.requestModel]: e.model })
      const failed = e.errorKind === 'ok' ? undefined : e.errorKind
      m.operationDuration.record(e.latencyMs / 1000, failed === undefined ? base : { ...base, [ATTR.errorType]: failed })
      if (e.response !== undefined) {
        m.tokenUsage.record(e.usage.inputTokens, { ...base, [ATTR.tokenType]: 'input' })
        m.tokenUsage.record(e.usage.outputTokens, { ...base, [ATTR.tokenType]: 'output' })
      }
      const span = spans.chat(e.runId)
      if (span === undefined) return
      span.setAttributes({ [ATTR.inputTokens]: e.usage.inputTokens, [ATTR.outputTokens]: e.usage.outputTokens, [ATTR.errorKind]: e.errorKind })
      if (e.finishReason !== undefined) span.setAttribute(ATTR.finishReasons, [finishReason(e.finishReason)])
      if (content && e.response !== undefined) span.setAttribute(ATTR.outputMessages, boundedContent(outputMessages(e.response)))
      if (failed !== undefined) {
        span.setAttribute(ATTR.errorType, failed)
        span.setStatus({ code: SpanStatusCode.ERROR, message: failed })
      }
    },
    cost_tick: (e) => {
      if (e.attemptCostUsd > 0) m.cost.add(e.attemptCostUsd, defined({ [ATTR.providerName]: e.provider, [ATTR.requestModel]: e.model }))
      spans.chat(e.runId)?.setAttribute(ATTR.costUsd, e.attemptCostUsd)
    },
    validation_failed: (e) => {
      m.validationFailures.add(1, defined({ [ATTR.stage]: e.stage, [ATTR.providerName]: e.provider, [ATTR.requestModel]: e.model }))
      const attributes = defined({ [ATTR.stage]: e.stage, [ATTR.path]: e.path, [ATTR.attempt]: e.attempt })
      attributes[ATTR.message] = boundedContent(e.message)
      if (content && e.rawOutput !== undefined) attributes[ATTR.rawOutput] = boundedContent(e.rawOutput)
      spans.current(e.runId)?.addEvent('validation_failed', attributes)
    },
    decision: (e) => {
      const attributes = defined({ [ATTR.decision]: e.decision, [ATTR.ruleKind]: e.kind, [ATTR.ruleLabel]: e.label, [ATTR.ruleMatched]: e.matched })
      const chat = spans.chat(e.runId)
      if (e.phase === 'post-decide' && chat !== undefined) {
        chat.setAttributes(attributes)
        spans.endChat(e.runId)
      } else {
        spans.current(e.runId)?.addEvent('pre_check_decision', attributes)
      }
    },
    retry: (e) => m.retries.add(1, defined({ [ATTR.providerName]: e.fromProvider, [ATTR.decision]: e.decision })),
    fail_fast: (e) => {
      const kind = defined({ [ATTR.failFastKind]: e.kind })
      m.failFast.add(1, kind)
      spans.root(e.runId, spans.isAgent(e.runId))?.setAttributes(kind)
    },
    tool_start: (e) => {
      const attributes = defined({
        [ATTR.operationName]: 'execute_tool',
        [ATTR.toolName]: e.tool,
        [ATTR.toolCallId]: e.callId,
        [ATTR.runId]: e.runId,
        ...tagAttributes(e),
      })
      if (content) attributes[ATTR.toolCallArguments] = boundedContent(jsonAttribute(e.args))
      spans.startTool(e.runId, `execute_tool ${boundedName(e.tool, 128)}`, attributes)
    },
    tool_end: (e) => {
      const span = spans.tool(e.runId)
      if (span === undefined) return
      span.setAttributes(defined({ [ATTR.toolStatus]: e.status, [ATTR.toolOutcome]: e.outcome, [ATTR.retryCount]: e.retryCount }))
      if (content) span.setAttribute(ATTR.toolCallArguments, boundedContent(jsonAttribute(e.args)))
      if (content && e.status === 'ok') span.setAttribute(ATTR.toolCallResult, boundedContent(jsonAttribute(e.result)))
      if (e.status !== 'ok') {
        span.setAttribute(ATTR.errorType, e.status)
        span.setStatus({ code: SpanStatusCode.ERROR, message: e.status })
      }
      spans.endTool(e.runId)
    },
    drift: (e) => m.drift.add(1, defined({ [ATTR.signal]: e.signal, [ATTR.state]: e.state, [ATTR.providerName]: e.provider, [ATTR.requestModel]: e.model })),
  }
}
