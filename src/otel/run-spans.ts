import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Tracer } from '@opentelemetry/api'
import type { EventTags } from '../events/event-map.ts'
import { isUnreadableField } from '../events/frozen-payload.ts'
import { boundedName } from './bounded-text.ts'
import { SafeSpan, type OnOtelError, type SpanSource } from './safe-span.ts'
import { ATTR } from './semconv.ts'

/** The open spans of one run (an agent run, or a gate run outside an agent). */
interface RunTrace {
  readonly root: SafeSpan
  readonly rootContext: Context
  /** True when the root is an agent run's `invoke_agent` span (its gate runs end inside it). */
  readonly agent: boolean
  tool: { readonly span: SafeSpan; readonly context: Context } | undefined
  chat: SafeSpan | undefined
}

/** The event that starts a run (`run_start`, `agent_run_start`): its id and its tags. */
export interface RunOpening extends EventTags {
  readonly runId: string
}

/** Most metadata keys put on a span as `reliability_gate.metadata.<key>`. */
export const MAX_METADATA_ATTRIBUTES = 32

/**
 * Spans by run id: one root per run, one `chat` span per attempt under it (under the open
 * `execute_tool` span when a tool call's argument retry makes the call), one `execute_tool` span per
 * logical tool call. Runs never share state, so concurrent runs give separate trees. Runs given the
 * same `runId` cannot be told apart by their events: each still gets its own root, the oldest open
 * one takes the next event that fits, and every span opened is ended once.
 *
 * Only runs whose root records are kept: a run whose root span does not record (no SDK, or not
 * sampled) is ended at once and its events find nothing here. An agent run that does not record is
 * remembered by its id alone ({@link quiet}), so that its gate runs stay model calls inside it.
 */
export class RunSpans {
  readonly #source: SpanSource
  readonly #runs = new Map<string, RunTrace[]>()
  // Agent runs that record nothing, by id: how many are open.
  readonly #quietAgents = new Map<string, number>()

  constructor(tracer: Tracer, onError: OnOtelError) {
    this.#source = { tracer, onError }
  }

  /**
   * Opens the root span of the run `start` starts (the caller's active context is its parent; the
   * event's tags become attributes) and keeps it when it records; a root that records nothing is
   * ended at once. Returns whether it records.
   */
  open(start: RunOpening, name: string, attributes: Attributes, agent: boolean): boolean {
    const runId = start.runId
    const options = { kind: SpanKind.INTERNAL, attributes: { ...attributes, [ATTR.runId]: boundedName(runId), ...tagAttributes(start) } }
    const root = SafeSpan.start(this.#source, name, options, undefined)
    if (!root.isRecording()) {
      root.end()
      return false
    }
    const traces = this.#runs.get(runId) ?? []
    traces.push({ root, rootContext: trace.setSpan(context.active(), root.span), agent, tool: undefined, chat: undefined })
    this.#runs.set(runId, traces)
    return true
  }

  /** Remembers an agent run that records nothing, until {@link endQuiet}. */
  quiet(runId: string): void {
    this.#quietAgents.set(runId, (this.#quietAgents.get(runId) ?? 0) + 1)
  }

  /** Forgets one agent run of that id that records nothing. */
  endQuiet(runId: string): void {
    const open = this.#quietAgents.get(runId)
    if (open === undefined) return
    if (open > 1) this.#quietAgents.set(runId, open - 1)
    else this.#quietAgents.delete(runId)
  }

  /** True when a run of that id records (its events have spans to go on). */
  has(runId: string): boolean {
    return this.#runs.has(runId)
  }

  /** True while any run records. */
  get recording(): boolean {
    return this.#runs.size > 0
  }

  /** True when the run has an open agent root, recording or not (its gate runs are model calls inside it). */
  isAgent(runId: string): boolean {
    // Sizes first: with nothing open (no SDK, every run quiet) a run's id is never hashed.
    return (this.#quietAgents.size > 0 && this.#quietAgents.has(runId)) || (this.#runs.size > 0 && this.#runs.get(runId)?.some((t) => t.agent) === true)
  }

  /** The root of the run's oldest open trace of that kind. */
  root(runId: string, agent: boolean): SafeSpan | undefined {
    return this.#runs.get(runId)?.find((t) => t.agent === agent)?.root
  }

  /** The span an event of the run is about: the current attempt's, else the tool call's, else the root. */
  current(runId: string): SafeSpan | undefined {
    const run = this.#oldest(runId, (t) => t.chat !== undefined) ?? this.#oldest(runId, (t) => t.tool !== undefined) ?? this.#oldest(runId, () => true)
    return run === undefined ? undefined : (run.chat ?? run.tool?.span ?? run.root)
  }

  /** Starts an attempt's `chat` span (ending the attempt span left open when every trace of the id has one). */
  startChat(runId: string, name: string, attributes: Attributes): SafeSpan | undefined {
    const run = this.#oldest(runId, (t) => t.chat === undefined) ?? this.#oldest(runId, () => true)
    if (run === undefined) return undefined
    run.chat?.end()
    run.chat = SafeSpan.start(this.#source, name, { kind: SpanKind.CLIENT, attributes }, run.tool?.context ?? run.rootContext)
    return run.chat
  }

  chat(runId: string): SafeSpan | undefined {
    return this.#oldest(runId, (t) => t.chat !== undefined)?.chat
  }

  endChat(runId: string): void {
    const run = this.#oldest(runId, (t) => t.chat !== undefined)
    if (run === undefined) return
    run.chat?.end()
    run.chat = undefined
  }

  /** Starts a logical tool call's `execute_tool` span. */
  startTool(runId: string, name: string, attributes: Attributes): void {
    const run = this.#oldest(runId, (t) => t.tool === undefined) ?? this.#oldest(runId, () => true)
    if (run === undefined) return
    run.tool?.span.end()
    const span = SafeSpan.start(this.#source, name, { kind: SpanKind.INTERNAL, attributes }, run.rootContext)
    run.tool = { span, context: trace.setSpan(run.rootContext, span.span) }
  }

  tool(runId: string): SafeSpan | undefined {
    return this.#oldest(runId, (t) => t.tool !== undefined)?.tool?.span
  }

  endTool(runId: string): void {
    const run = this.#oldest(runId, (t) => t.tool !== undefined)
    if (run === undefined) return
    run.tool?.span.end()
    run.tool = undefined
  }

  /** Forgets the oldest open tool span of the run without ending it: never ended, it is never exported (a call the journal answered). */
  dropTool(runId: string): void {
    const run = this.#oldest(runId, (t) => t.tool !== undefined)
    if (run !== undefined) run.tool = undefined
  }

  /** Ends every open span of the run's oldest trace of that kind, the root last, and forgets it. */
  close(runId: string, agent: boolean, failed: string | undefined): void {
    const traces = this.#runs.get(runId)
    const at = traces?.findIndex((t) => t.agent === agent) ?? -1
    if (traces === undefined || at < 0) return
    const [run] = traces.splice(at, 1) as [RunTrace]
    if (traces.length === 0) this.#runs.delete(runId)
    run.chat?.end()
    run.tool?.span.end()
    if (failed !== undefined) {
      run.root.setAttribute(ATTR.errorType, boundedName(failed))
      run.root.setStatus({ code: SpanStatusCode.ERROR, message: boundedName(failed) })
    }
    run.root.end()
  }

  /** Ends every open span of every run (the instrumentation stops). */
  closeAll(): void {
    this.#quietAgents.clear()
    for (const [runId, traces] of [...this.#runs]) for (const t of [...traces]) this.close(runId, t.agent, undefined)
  }

  #oldest(runId: string, test: (t: RunTrace) => boolean): RunTrace | undefined {
    return this.#runs.get(runId)?.find(test)
  }
}

/**
 * The run's turn and primitive metadata values as attributes (`reliability_gate.metadata.<key>`):
 * keys and string values bounded and escaped, at most {@link MAX_METADATA_ATTRIBUTES}; a getter or a
 * Proxy that throws leaves its value out.
 */
export function tagAttributes(tags: EventTags): Attributes {
  const out: Attributes = {}
  if (tags.turn !== undefined) out[ATTR.turn] = tags.turn
  const metadata = tags.metadata
  if (metadata === undefined) return out
  let keys: string[]
  try {
    keys = Object.keys(metadata).slice(0, MAX_METADATA_ATTRIBUTES)
  } catch {
    return out
  }
  for (const key of keys) {
    let value: unknown
    try {
      value = metadata[key]
    } catch {
      continue
    }
    // The events' frozen copy holds a marker where the caller's getter threw: no value, so no attribute.
    if (isUnreadableField(metadata, key)) continue
    const name = ATTR.metadata + boundedName(key, 64)
    if (typeof value === 'string') out[name] = boundedName(value)
    else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') out[name] = value
  }
  return out
}
