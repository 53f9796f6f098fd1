import type { EventHub } from '../events/event-hub.ts'
import { keepShape } from '../model/keep-shape.ts'
import type { EventTags } from '../events/event-map.ts'
import { jsonTextOf } from '../model/json-text-of.ts'
import type { Message } from '../model/message.ts'
import type { ReasoningBlock } from '../model/reasoning.ts'
import type { ModelResponse } from '../model/response.ts'
import type { ToolCall } from '../model/tool-call.ts'
import type { ToolChoice } from '../model/tool-choice.ts'
import { raceAbort } from '../model/race-abort.ts'
import {
  checkForbiddenKeys,
  fitToolTail,
  formatFeedback,
  parseJsonSafe,
  validateToolArgs,
  type CompiledSchema,
  type EchoLimits,
  type ValidationFailure,
} from '../validation/index.ts'
import type { LogSink } from './logger.ts'
import { reportOutcome } from './report-outcome.ts'
import { stableKey } from '../model/stable-key.ts'
import type { ToolArgsVerdict } from './tool-args-verdict.ts'
import { guardFailure } from './tools/guard-failure.ts'
import type { GuardContext, ToolGuard } from './tools/guard.ts'
import { runGuards, type GuardRejection } from './tools/run-guards.ts'
import { guardRetryTail } from './guard-retry-tail.ts'
import type { ContentGuard } from '../validation/guards/index.ts'

/** How the argument loop reports and bounds its retries: the agent's runtime, or the AI SDK middleware's settings. */
export interface ToolArgsSettings {
  /** The name in guard contexts and in the outcome log line (`ext=`). */
  readonly name: string
  readonly events: EventHub
  readonly logger: LogSink | undefined
  readonly retryHint: string | undefined
  /** The gate's feedback bounds: the echoed call and the feedback of a retry tail fit them together. */
  readonly feedbackLimits: EchoLimits
  /**
   * A retry answered in prose is asked once more, with `toolChoice` pinned to the tool (once per
   * logical call). Off by default: the seed lets the prose answer stand (`llm_gave_up`).
   */
  readonly forcedToolReask?: boolean | undefined
  /**
   * A typed stop instead of the seed's outcomes: prose after a rejected call ends the run as
   * `tool-call-abandoned`, a retry repeating the rejected arguments of the attempt before it as
   * `schema-stuck-loop`. Off by default: `llm_gave_up` and `redundant` let the run go on.
   */
  readonly toolGiveUpStops?: boolean | undefined
  /** Content guards: those of the `retry-tail` surface screen each retry's tail before it is sent. */
  readonly contentGuards?: readonly ContentGuard[] | undefined
}

/** What the argument loop needs from the run (or call) it belongs to. */
export interface ToolArgsHost {
  readonly runId: string
  /** The run's turn and metadata, for its events. */
  readonly tags: EventTags
  readonly signal: AbortSignal | undefined
  /**
   * One retry: a gate call on `messages` (output validation off), billed to the run; with
   * `toolChoice` on its request when given (the forced re-ask pins the tool).
   */
  askAgain(messages: readonly Message[], toolChoice?: ToolChoice): Promise<ModelResponse>
  /** Reports an argument validation failure, a guard's rejection included (`attempt` is 1-indexed within the logical call). */
  validationFailed(failure: ValidationFailure, attempt: number): void
}

/** The tool a call's arguments are checked against. */
export interface ToolArgsSpec {
  readonly name: string
  readonly input: CompiledSchema<unknown>
  /** Every guard, run on the first attempt and on every retry input. */
  readonly guards: readonly ToolGuard<unknown>[]
  /** Retries on argument validation failures. */
  readonly maxRetries: number
}

export type { ToolArgsVerdict }

/** The logical tool call a loop settles: the model's call, the turn's messages before the answer that made it, and that answer's reasoning. */
export interface RetriedCall {
  readonly call: ToolCall
  readonly base: readonly Message[]
  readonly reasoning?: readonly ReasoningBlock[] | undefined
  /** The call's key within its turn (see `turnCallKeys`): its id, numbered when the model repeats it; the id when absent. */
  readonly key?: string | undefined
}

/**
 * The argument loop of one logical tool call (DESIGN.md "Tool-call argument retry"), shared by the
 * agent and the AI SDK middleware. Arguments are validated against the tool's schema and every
 * guard runs, on the first attempt and on every retry input; guards and an async schema never hold
 * the run past its signal. Only a validation failure is retried, within `maxRetries`, by asking the
 * same model for the same tool with an ephemeral tail `[assistant(failing call), tool(is_error
 * feedback)]`, fitted to the feedback bounds and rebuilt from `base` each time; the failing call's
 * assistant message carries the reasoning of the answer it came from. The first call to the same
 * tool in the reply is taken; a repeat of the retried call's arguments is reported `redundant` at once (WARNING)
 * and counts against the budget, the loop going on until `exhausted`. A retry reply in prose (no
 * tool call at all) is `llm_gave_up`: its answer stands (`answered`). These are the seed's
 * outcomes; two options change them. `forcedToolReask`: a prose reply gets one more re-ask, the same
 * tail with `toolChoice` pinned to the tool, whatever retries remain (once per logical call).
 * `toolGiveUpStops`: prose ends the loop as `abandoned` (also another tool in the forced re-ask's
 * reply), and a retry rejected with exactly the arguments of the attempt before it as `stuck`. The
 * final outcome is the caller's to report.
 */
export class ToolArgsRetry {
  readonly #host: ToolArgsHost
  readonly #settings: ToolArgsSettings
  readonly #spec: ToolArgsSpec
  readonly #original: ToolCall
  readonly #base: readonly Message[]
  readonly #tried: unknown[] = []
  /** The stable key of the previous attempt's arguments, for the redundant and stuck-loop checks. */
  #lastKey: string | undefined
  /** The forced re-ask (toolChoice pinned) was spent: one per logical call. */
  #forced = false
  #retry = 0
  /** Retries whose reply did not call the tool (the give-up, and a reply the forced re-ask followed). */
  #unanswered = 0
  #redundant = 0
  /** The reasoning of the answer the current call came from (ephemeral once it is a retry's). */
  #reasoning: readonly ReasoningBlock[] | undefined

  constructor(host: ToolArgsHost, settings: ToolArgsSettings, spec: ToolArgsSpec, at: RetriedCall) {
    this.#host = host
    this.#settings = settings
    this.#spec = spec
    this.#original = at.call
    this.#base = at.base
    this.#reasoning = at.reasoning
  }

  /** Argument retries made so far (model calls beyond the first). */
  get retry(): number {
    return this.#retry
  }
  /** Retries the model answered with a call of the tool (Imperal's `retry_count`: a give-up on the first retry is 0). */
  get answered(): number {
    return this.#retry - this.#unanswered
  }
  /** Retries that repeated the arguments of the call they retried (keys sorted). */
  get redundant(): number {
    return this.#redundant
  }
  /** The arguments of every attempt so far, oldest first, as {@link normalizeArgs} gives them. */
  get tried(): readonly unknown[] {
    return this.#tried
  }

  async settle(): Promise<ToolArgsVerdict> {
    const spec = this.#spec
    const signal = this.#host.signal
    const rawGuards = spec.guards.filter((g) => g.checksRawInput === true)
    const typedGuards = spec.guards.filter((g) => g.checksRawInput !== true)
    let current = this.#original
    for (;;) {
      const args = normalizeArgs(current.args)
      const key = stableKey(args)
      const repeated = key === this.#lastKey
      this.#lastKey = key
      this.#tried.push(args)
      const ctx: GuardContext = { tool: spec.name, callId: this.#original.id, retry: this.#retry, agent: this.#settings.name }

      const rawRejection = await runGuards(rawGuards, args, ctx, signal)
      if (rawRejection !== undefined) return this.#blocked(rawRejection, current.args)
      let verdict = validateToolArgs(current.args, spec.input)
      // An async schema is user code: it never holds the run past its signal.
      if (verdict instanceof Promise) verdict = await raceAbort(verdict, signal)
      if (verdict.ok) {
        const rejection = await runGuards(typedGuards, verdict.value, ctx, signal)
        if (rejection !== undefined) return this.#blocked(rejection, current.args)
        return { status: 'valid', outcome: this.#retry === 0 ? 'no_retry' : 'success', value: verdict.value, call: current }
      }

      this.#host.validationFailed(verdict.failure, this.#retry + 1)
      // The same rejected arguments again: with the typed stop on, more retries would only repeat them.
      if (repeated && this.#settings.toolGiveUpStops === true) return { status: 'stuck', outcome: 'exhausted', failure: verdict.failure }
      if (this.#retry >= spec.maxRetries) return { status: 'invalid-args', outcome: 'exhausted', failure: verdict.failure }
      const next = await this.#askAgain(current, verdict.failure)
      if (next === OTHER_TOOL) return { status: 'invalid-args', outcome: 'llm_gave_up', failure: verdict.failure }
      if (next instanceof Prose) {
        if (this.#settings.toolGiveUpStops === true) return { status: 'abandoned', outcome: 'llm_gave_up', failure: verdict.failure, reasked: next.reasked }
        return { status: 'answered', outcome: 'llm_gave_up', failure: verdict.failure, response: next.response }
      }
      current = next
    }
  }

  /**
   * One retry: the base plus an ephemeral tail for the failing call only; the first call to the same
   * tool wins. With `forcedToolReask`, a reply in prose is asked once more with `toolChoice` pinned
   * to the tool.
   */
  async #askAgain(failing: ToolCall, failure: ValidationFailure): Promise<ToolCall | typeof OTHER_TOOL | Prose> {
    const settings = this.#settings
    const name = this.#spec.name
    this.#retry++
    const prose = formatFeedback({
      target: 'tool',
      stage: 'tool-args',
      issues: failure.issues,
      toolName: name,
      ...(settings.retryHint !== undefined ? { retryHint: settings.retryHint } : {}),
    })
    // The echoed call and the feedback together fit the gate's feedback bounds, whatever the model sent.
    const run = { events: settings.events, runId: this.#host.runId, tags: this.#host.tags, signal: this.#host.signal, tool: name }
    const { feedback, echo: args } = await guardRetryTail(settings.contentGuards, fitToolTail(prose, failing.args, settings.feedbackLimits), run)
    const reasoning = this.#reasoning
    const tail: readonly Message[] = [
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: failing.id, name: failing.name, args }],
        ...(reasoning !== undefined ? { reasoning } : {}),
        ephemeral: true,
      },
      { role: 'tool', content: feedback, toolCallId: failing.id, toolName: failing.name, isError: true, ephemeral: true },
    ]
    const messages = this.#base.concat(tail)
    let response = await this.#host.askAgain(messages)
    let next = response.toolCalls.find((c) => c.name === name)
    let reasked = false
    if (next === undefined && response.toolCalls.length === 0 && settings.forcedToolReask === true && !this.#forced) {
      // Prose instead of the tool: insist once, with the provider told to call that tool.
      this.#forced = true
      reasked = true
      this.#unanswered++
      this.#retry++
      response = await this.#host.askAgain(messages, { tool: name })
      next = response.toolCalls.find((c) => c.name === name)
    }
    if (next === undefined) {
      this.#unanswered++
      // With the typed stop on, a forced re-ask answered with another tool is as much a refusal as prose.
      if (response.toolCalls.length === 0 || (reasked && settings.toolGiveUpStops === true)) return new Prose(response, reasked)
      return OTHER_TOOL
    }
    this.#reasoning = response.reasoning
    // Redundant as in the seed: the same arguments (keys sorted) as the call just retried, not as any earlier one.
    if (stableKey(normalizeArgs(next.args)) === this.#lastKey) {
      this.#redundant++
      const host = this.#host
      reportOutcome(settings.events, settings.logger, {
        runId: host.runId,
        ...host.tags,
        tool: name,
        agent: settings.name,
        outcome: 'redundant',
        retryCount: this.answered,
      })
    }
    return next
  }

  /**
   * A guard rejected the arguments: never retried (DESIGN.md, the Imperal loop), but reported as a
   * validation failure of the arguments, like a schema failure.
   */
  #blocked(rejection: GuardRejection, args: unknown): ToolArgsVerdict {
    const failure = guardFailure(rejection, args)
    this.#host.validationFailed(failure, this.#retry + 1)
    // A guard rejecting a retry's input means the model "fixed" the call by inventing something.
    return { status: 'guard-rejected', outcome: this.#retry === 0 ? 'no_retry' : 'fabricated_id_on_retry', rejection, failure }
  }
}

/** The retry reply called another tool instead. */
const OTHER_TOOL = Symbol('other tool')

/** The retry reply did not call the tool: prose (or, re-asked with the tool pinned, another tool). */
class Prose {
  readonly response: ModelResponse
  /** The forced re-ask was made for this reply. */
  readonly reasked: boolean
  constructor(response: ModelResponse, reasked: boolean) {
    this.response = response
    this.reasked = reasked
  }
}

/**
 * Arguments as an object when a provider left them as a JSON string; anything else as it is, except
 * an object holding a forbidden key (`__proto__`, ...), which is kept as its JSON text so that it
 * never reaches user code as an object (`functionsCalled`, guards).
 */
export function normalizeArgs(args: unknown): unknown {
  if (typeof args !== 'string') return checkForbiddenKeys(args) === undefined ? args : jsonTextOf(args)
  const parsed = parseJsonSafe(args)
  return parsed.ok ? parsed.value : args
}

// A loop that holds nothing, kept for its hidden class (see keepShape).
const NOTHING = Object.freeze({}) as never
keepShape(new ToolArgsRetry(NOTHING, NOTHING, NOTHING, { call: NOTHING, base: [], reasoning: undefined }))
