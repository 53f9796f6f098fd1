import { emitToolArgsFailure } from '../../agent/run-events.ts'
import { RunLedger } from '../../agent/run-ledger.ts'
import type { ToolArgsHost } from '../../agent/tool-args-retry.ts'
import type { EventTags } from '../../events/event-map.ts'
import type { Gate } from '../../gate/create-gate.ts'
import { isReliabilityFailFastError } from '../../gate/fail-fast-error.ts'
import type { GateRunOptions } from '../../gate/gate-internals.ts'
import { sharedDeadline } from '../../gate/run/run-deadline.ts'
import type { GateResult } from '../../gate/gate-result.ts'
import type { Message } from '../../model/message.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import type { ToolChoice } from '../../model/tool-choice.ts'
import type { Usage } from '../../model/usage.ts'
import type { CompiledSchema } from '../../validation/index.ts'
import { sameDeadline } from '../host/host-deadline.ts'
import { settleHostToolCall } from '../host/host-tool-call.ts'
import type { HostToolSettings } from '../host/host-tool-settings.ts'
import { asGiveUp, toolArgsGiveUp, type NoObjectGeneratedFields } from './give-up-error.ts'

/** How the middleware treats tool-call arguments: the agent's argument loop, with its retries and guards as options. */
export type ToolArgsOptions = HostToolSettings

const NO_TAGS: EventTags = Object.freeze({})

/** A middleware call's tool calls, settled: each with its final arguments, or the prose reply that stands instead. */
export type SettledCalls =
  | { readonly calls: readonly ToolCall[]; readonly answer?: undefined }
  /** A retry was answered in prose (`llm_gave_up`): the seed lets that answer stand, in place of the tool calls. */
  | { readonly answer: ModelResponse; readonly calls?: undefined }

/** What a middleware call hands its tool-argument loop: its gate, request and run options, the tool settings, and how to read the last raw answer. */
export interface MiddlewareCall {
  readonly gate: Gate<unknown>
  /** The call's request, before any retry tail. */
  readonly base: ModelRequest
  readonly options: GateRunOptions & { readonly runId: string }
  readonly settings: ToolArgsOptions
  /** The last answer's fields, for the AI SDK's `NoObjectGeneratedError` shape of a give-up. */
  readonly last: () => NoObjectGeneratedFields | undefined
}

/**
 * The tool-argument loop of one middleware call, on the agent's own mechanism ({@link ToolArgsRetry},
 * {@link RunLedger}): retries go through the call's gate (its rules, budgets and events) with output
 * validation off, and are billed to the call. Calls to tools without a schema are left to the AI
 * SDK. A retry answered in prose is the seed's `llm_gave_up`: that answer stands, in place of the
 * tool calls. Throws the give-up error when a call's arguments stay invalid, a guard blocks them or
 * the retry reply calls another tool (the middleware writes no tool results of its own), and for
 * the typed stops a user turned on (`toolGiveUpStops`).
 */
export class ToolArgsCall implements ToolArgsHost {
  readonly runId: string
  readonly tags: EventTags = NO_TAGS
  readonly signal: AbortSignal | undefined
  readonly #gate: Gate<unknown>
  readonly #base: ModelRequest
  readonly #options: GateRunOptions
  readonly #settings: ToolArgsOptions
  readonly #last: () => NoObjectGeneratedFields | undefined
  readonly #ledger = new RunLedger()

  /** The loop of `call`, whose gate run answered `first`. */
  constructor(call: MiddlewareCall, first: GateResult<unknown>) {
    const { options } = call
    this.runId = options.runId
    this.signal = options.signal
    this.#gate = call.gate
    this.#base = call.base
    this.#options = options
    this.#settings = call.settings
    this.#last = call.last
    this.#ledger.add(first)
  }

  /** Usage of every attempt of the call so far, retries of tool arguments included. */
  get usage(): Usage {
    return this.#ledger.usage
  }

  /** The answer's calls with their final arguments (same ids), or a prose reply that stands; throws the give-up error when a call cannot be settled. */
  async settle(response: ModelResponse, schemas: ReadonlyMap<string, CompiledSchema<unknown>>): Promise<SettledCalls> {
    const settled: ToolCall[] = []
    for (const call of response.toolCalls) {
      const input = schemas.get(call.name)
      if (input === undefined) {
        settled.push(call)
        continue
      }
      const late = () => sharedDeadline(this.#options)?.expired === true
      const done = await settleHostToolCall({
        host: this,
        settings: this.#settings,
        call,
        input,
        base: this.#base.messages,
        reasoning: response.reasoning,
        late,
      }).catch((error: unknown) => {
        // A stop of the loop (the deadline, an abort) carries the whole call's attempts, as a retry's failure does.
        throw isReliabilityFailFastError(error) ? asGiveUp(this.#ledger.widen(error), this.#last()) : error
      })
      if (done.status === 'answered') return { answer: done.response }
      // The middleware writes no tool results of its own: an unsettled call is the give-up error.
      if (done.status === 'unsettled') throw asGiveUp(toolArgsGiveUp(done, this.runId, this.#ledger), this.#last())
      settled.push({ id: call.id, name: call.name, args: done.args })
    }
    return { calls: settled }
  }

  /**
   * One retry through the call's gate, billed to the call; a failure carries the whole call's
   * attempts. A forced re-ask's `toolChoice` replaces the caller's on the model call.
   */
  async askAgain(messages: readonly Message[], toolChoice?: ToolChoice): Promise<ModelResponse> {
    const options: GateRunOptions = sameDeadline(this.#options, {
      ...this.#options,
      validateOutput: false,
      validationFailuresBefore: this.#ledger.validationFailures,
    })
    let result: GateResult<unknown>
    try {
      result = await this.#gate.run(toolChoice === undefined ? { ...this.#base, messages } : { ...this.#base, messages, toolChoice }, options)
    } catch (error) {
      if (!isReliabilityFailFastError(error)) throw error
      this.#ledger.add(error)
      throw asGiveUp(this.#ledger.widen(error), this.#last())
    }
    this.#ledger.add(result)
    return result.response
  }

  validationFailed(failure: Parameters<ToolArgsHost['validationFailed']>[0], attempt: number): void {
    this.#ledger.toolArgsFailed()
    const events = this.#settings.events
    if (!events.has('validation_failed')) return
    emitToolArgsFailure({ events, who: { runId: this.runId, tags: this.tags, agent: this.#settings.name }, ledger: this.#ledger }, failure, attempt)
  }
}
