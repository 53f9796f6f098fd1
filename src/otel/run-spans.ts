import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api'
import type { EventTags } from '../events/event-map.ts'
import { ATTR } from './semconv.ts'

/** The open spans of one run (an agent run, or a gate run outside an agent). */
interface RunTrace {
  readonly root: Span
  readonly rootContext: Context
  /** True when the root is an agent run's `invoke_agent` span (its gate runs end inside it). */
  readonly agent: boolean
  tool: { readonly span: Span; readonly context: Context } | undefined
  chat: Span | undefined
}

/**
 * Spans by run id: one root per run, one `chat` span per attempt under it (under the open
 * `execute_tool` span when a tool call's argument retry makes the call), one `execute_tool` span per
 * logical tool call. Runs never share state, so concurrent runs give separate trees.
 */
export class RunSpans {
  readonly #tracer: Tracer
  readonly #runs = new Map<string, RunTrace>()

  constructor(tracer: Tracer) {
    this.#tracer = tracer
  }

  /** Opens the root span of a run; the caller's active context is its parent. */
  open(runId: string, name: string, attributes: Attributes, tags: EventTags, agent: boolean): void {
    const root = this.#tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes: { ...attributes, [ATTR.runId]: runId, ...tagAttributes(tags) } })
    this.#runs.set(runId, { root, rootContext: trace.setSpan(context.active(), root), agent, tool: undefined, chat: undefined })
  }

  /** True when the run has an open root span. */
  has(runId: string): boolean {
    return this.#runs.has(runId)
  }

  /** True when the run's root is an agent run's. */
  isAgent(runId: string): boolean {
    return this.#runs.get(runId)?.agent === true
  }

  root(runId: string): Span | undefined {
    return this.#runs.get(runId)?.root
  }

  /** The span an event of the run is about: the current attempt's, else the tool call's, else the root. */
  current(runId: string): Span | undefined {
    const run = this.#runs.get(runId)
    return run === undefined ? undefined : (run.chat ?? run.tool?.span ?? run.root)
  }

  /** Starts an attempt's `chat` span (ending any attempt span left open). */
  startChat(runId: string, name: string, attributes: Attributes): Span | undefined {
    const run = this.#runs.get(runId)
    if (run === undefined) return undefined
    run.chat?.end()
    run.chat = this.#tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes }, run.tool?.context ?? run.rootContext)
    return run.chat
  }

  chat(runId: string): Span | undefined {
    return this.#runs.get(runId)?.chat
  }

  endChat(runId: string): void {
    const run = this.#runs.get(runId)
    if (run === undefined) return
    run.chat?.end()
    run.chat = undefined
  }

  /** Starts a logical tool call's `execute_tool` span. */
  startTool(runId: string, name: string, attributes: Attributes): void {
    const run = this.#runs.get(runId)
    if (run === undefined) return
    run.tool?.span.end()
    const span = this.#tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, run.rootContext)
    run.tool = { span, context: trace.setSpan(run.rootContext, span) }
  }

  tool(runId: string): Span | undefined {
    return this.#runs.get(runId)?.tool?.span
  }

  endTool(runId: string): void {
    const run = this.#runs.get(runId)
    if (run === undefined) return
    run.tool?.span.end()
    run.tool = undefined
  }

  /** Ends every open span of the run, the root last, and forgets it. */
  close(runId: string, failed: string | undefined): void {
    const run = this.#runs.get(runId)
    if (run === undefined) return
    this.#runs.delete(runId)
    run.chat?.end()
    run.tool?.span.end()
    if (failed !== undefined) {
      run.root.setAttribute(ATTR.errorType, failed)
      run.root.setStatus({ code: SpanStatusCode.ERROR, message: failed })
    }
    run.root.end()
  }

  /** Ends every open span of every run (the instrumentation stops). */
  closeAll(): void {
    for (const runId of [...this.#runs.keys()]) this.close(runId, undefined)
  }
}

/** The run's turn and primitive metadata values as attributes (`reliability_gate.metadata.<key>`). */
export function tagAttributes(tags: EventTags): Attributes {
  const out: Attributes = {}
  if (tags.turn !== undefined) out[ATTR.turn] = tags.turn
  if (tags.metadata !== undefined) {
    for (const [key, value] of Object.entries(tags.metadata)) {
      if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[ATTR.metadata + key] = value
    }
  }
  return out
}
