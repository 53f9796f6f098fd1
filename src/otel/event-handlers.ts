import { SpanStatusCode } from '@opentelemetry/api'
import { boundedContent, boundedName } from './bounded-text.ts'
import { inputMessages, jsonAttribute, outputMessages } from './content.ts'
import { defined, type GateMetrics } from './gate-metrics.ts'
import type { TracerMayRecord } from './noop-telemetry.ts'
import type { Handlers } from './run-listeners.ts'
import { type RunSpans, tagAttributes } from './run-spans.ts'
import { ATTR, EVALUATION_RESULT, finishReason } from './semconv.ts'

/** What the handlers of one `instrument()` report to. */
export interface HandlerTargets {
  readonly spans: RunSpans
  /** `undefined` when the meter is the API's no-op one: nothing is recorded, no attributes built. */
  readonly metrics: GateMetrics | undefined
  readonly mayRecord: TracerMayRecord
  /** Put prompts, outputs and tool arguments and results on spans. */
  readonly content: boolean
  /** The workflow name of a plain gate run's root span. */
  readonly workflow: string
  /** Told as each run starts whether any run records (see `RunListeners.follow`). */
  readonly follow: (anyRecording: boolean) => void
}

/**
 * The handlers of `instrument()`: `always` decide at each run's start whether it records (its root
 * span is started only when the tracer may record, and kept only when it does); `perRun` report
 * what happens inside runs, and do nothing for a run that does not record, unless for metrics. An attempt a durable
 * run answered from its journal (`replayed: true`) was reported by the process that ran it: it gets no span, and no
 * metric counts it (or the run's end that followed it) again.
 */
export function eventHandlers(t: HandlerTargets): { readonly always: Handlers; readonly perRun: Handlers } {
  const { spans, metrics: m, content } = t
  const always: Handlers = {
    agent_run_start: (e) => {
      const recording =
        t.mayRecord() &&
        spans.open(e, `invoke_agent ${boundedName(e.agent, 128)}`, defined({ [ATTR.operationName]: 'invoke_agent', [ATTR.agentName]: e.agent }), true)
      if (!recording) spans.quiet(e.runId)
      t.follow(spans.recording)
    },
    agent_run_end: (e) => {
      const root = spans.root(e.runId, true)
      if (root === undefined) {
        spans.endQuiet(e.runId)
        return
      }
      root.setAttributes(
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
      if (spans.isAgent(e.runId)) return
      if (t.mayRecord()) spans.open(e, `invoke_workflow ${t.workflow}`, { [ATTR.operationName]: 'invoke_workflow', [ATTR.workflowName]: t.workflow }, false)
      t.follow(spans.recording)
    },
  }
  const perRun: Handlers = {
    run_end: (e) => {
      if (e.replayed !== true) m?.attempts.record(e.attempts, defined({ [ATTR.providerName]: e.provider, [ATTR.outcome]: e.outcome }))
      if (spans.isAgent(e.runId)) return
      const root = spans.root(e.runId, false)
      if (root === undefined) return
      root.setAttributes({
        [ATTR.inputTokens]: e.usage.inputTokens,
        [ATTR.outputTokens]: e.usage.outputTokens,
        [ATTR.costUsd]: e.costUsd,
        [ATTR.attempts]: e.attempts,
        [ATTR.outcome]: e.outcome,
      })
      spans.close(e.runId, false, e.outcome === 'ok' ? undefined : e.kind)
    },
    attempt_start: (e) => {
      if (e.replayed === true || !spans.has(e.runId)) return
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
      if (e.replayed === true) return
      const failed = e.errorKind === 'ok' ? undefined : e.errorKind
      if (m !== undefined) {
        const base = defined({ [ATTR.operationName]: 'chat', [ATTR.providerName]: e.provider, [ATTR.requestModel]: e.model })
        m.operationDuration.record(e.latencyMs / 1000, failed === undefined ? base : { ...base, [ATTR.errorType]: failed })
        if (e.response !== undefined) {
          m.tokenUsage.record(e.usage.inputTokens, { ...base, [ATTR.tokenType]: 'input' })
          m.tokenUsage.record(e.usage.outputTokens, { ...base, [ATTR.tokenType]: 'output' })
        }
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
      if (m !== undefined && e.attemptCostUsd > 0) m.cost.add(e.attemptCostUsd, defined({ [ATTR.providerName]: e.provider, [ATTR.requestModel]: e.model }))
      spans.chat(e.runId)?.setAttribute(ATTR.costUsd, e.attemptCostUsd)
    },
    validation_failed: (e) => {
      if (e.replayed === true) return
      m?.validationFailures.add(1, defined({ [ATTR.stage]: e.stage, [ATTR.providerName]: e.provider, [ATTR.requestModel]: e.model }))
      const span = spans.current(e.runId)
      if (span === undefined) return
      const attributes = defined({ [ATTR.stage]: e.stage, [ATTR.path]: e.path, [ATTR.attempt]: e.attempt })
      // The message quotes the values the model wrote (`got "..."`): content, recorded only when content is.
      if (content) attributes[ATTR.message] = boundedContent(e.message)
      if (content && e.rawOutput !== undefined) attributes[ATTR.rawOutput] = boundedContent(e.rawOutput)
      span.addEvent('validation_failed', attributes)
    },
    decision: (e) => {
      if (e.replayed === true || !spans.has(e.runId)) return
      const attributes = defined({ [ATTR.decision]: e.decision, [ATTR.ruleKind]: e.kind, [ATTR.ruleLabel]: e.label, [ATTR.ruleMatched]: e.matched })
      const chat = spans.chat(e.runId)
      if (e.phase === 'post-decide' && chat !== undefined) {
        chat.setAttributes(attributes)
        spans.endChat(e.runId)
      } else {
        spans.current(e.runId)?.addEvent('pre_check_decision', attributes)
      }
    },
    fail_fast: (e) => {
      if (m === undefined && !spans.has(e.runId)) return
      const kind = defined({ [ATTR.failFastKind]: e.kind })
      if (e.replayed !== true) m?.failFast.add(1, kind)
      spans.root(e.runId, spans.isAgent(e.runId))?.setAttributes(kind)
    },
    guard_verdict: (e) => {
      // Each verdict a `gen_ai.evaluation.result` record on the span it happened in (a tool's, a chat's, the run's).
      const span = spans.tool(e.runId) ?? spans.current(e.runId)
      if (span === undefined) return
      const attributes = defined({
        [ATTR.evaluationName]: e.guard,
        [ATTR.evaluationLabel]: e.action,
        [ATTR.guardSurface]: e.surface,
        [ATTR.guardFailure]: e.failure,
        [ATTR.toolName]: e.tool,
      })
      // A guard's reason may quote what it saw: content, recorded only when content is.
      if (content && e.reason !== undefined) attributes[ATTR.evaluationExplanation] = boundedContent(e.reason)
      span.addEvent(EVALUATION_RESULT, attributes)
    },
    tool_start: (e) => {
      if (!spans.has(e.runId)) return
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
      // A call a durable run's journal answered ran, and was reported, in an earlier process: no second span.
      if (e.replayed === true) return spans.dropTool(e.runId)
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
  }
  if (m === undefined) return { always, perRun }
  // Metrics only: with no meter there is nothing to listen for.
  const metricsOnly: Handlers = {
    retry: (e) => {
      if (e.replayed !== true) m.retries.add(1, defined({ [ATTR.providerName]: e.fromProvider, [ATTR.decision]: e.decision }))
    },
    drift: (e) => m.drift.add(1, defined({ [ATTR.signal]: e.signal, [ATTR.state]: e.state, [ATTR.providerName]: e.provider, [ATTR.requestModel]: e.model })),
  }
  return { always, perRun: { ...perRun, ...metricsOnly } }
}
