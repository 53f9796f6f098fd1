import type { EventHub } from '../../events/event-hub.ts'
import type { AttemptRecord } from '../../gate/attempt-record.ts'
import type { Gate } from '../../gate/create-gate.ts'
import type { GateRunOptions } from '../../gate/gate-internals.ts'
import type { GateResult } from '../../gate/gate-result.ts'
import type { Message } from '../../model/message.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { ToolCall } from '../../model/tool-call.ts'
import { addUsage, type Usage } from '../../model/usage.ts'
import type { CompiledSchema } from '../../validation/index.ts'
import { asGiveUp, toolArgsGiveUp, type LastAnswer } from './give-up-error.ts'
import { settleToolArgs, type ToolArgsHost, type ToolArgsSettings } from './tool-args-loop.ts'

/**
 * The tool-argument loop of one middleware call: retries go through the call's gate (its rules,
 * budgets and events) with output validation off, and are billed to the call. Throws the give-up
 * error when a call's arguments stay invalid or a guard blocks them.
 */
export class ToolArgsCall {
  readonly #gate: Gate<unknown>
  readonly #base: ModelRequest
  readonly #options: GateRunOptions
  readonly #settings: ToolArgsSettings
  readonly #events: EventHub
  readonly #last: () => LastAnswer | undefined
  readonly #attempts: AttemptRecord[]
  #usage: Usage
  #costUsd: number

  constructor(
    gate: Gate<unknown>,
    base: ModelRequest,
    options: GateRunOptions,
    first: GateResult<unknown>,
    settings: ToolArgsSettings,
    events: EventHub,
    last: () => LastAnswer | undefined,
  ) {
    this.#gate = gate
    this.#base = base
    this.#options = options
    this.#settings = settings
    this.#events = events
    this.#last = last
    this.#attempts = [...first.attempts]
    this.#usage = first.usage
    this.#costUsd = first.costUsd
  }

  /** Usage of every attempt of the call so far, retries of tool arguments included. */
  get usage(): Usage {
    return this.#usage
  }

  /** The calls with their final arguments; throws the give-up error when one cannot be settled. */
  async settle(calls: readonly ToolCall[], schemas: ReadonlyMap<string, CompiledSchema<unknown>>): Promise<readonly ToolCall[]> {
    const last = this.#attempts.at(-1)
    const host: ToolArgsHost = {
      runId: this.#options.runId ?? '',
      provider: last?.provider ?? 'unknown',
      model: last?.model,
      events: this.#events,
      failures: this.#attempts.filter((a) => a.validationStage !== undefined).length,
      askAgain: (tail) => this.#askAgain(tail),
    }
    const verdict = await settleToolArgs(calls, schemas, this.#settings, host)
    if (verdict.ok) return verdict.calls
    throw asGiveUp(toolArgsGiveUp(verdict.giveUp, { runId: host.runId, attempts: this.#attempts, usage: this.#usage, costUsd: this.#costUsd }), this.#last())
  }

  async #askAgain(tail: readonly Message[]): Promise<ModelResponse> {
    const request: ModelRequest = { ...this.#base, messages: this.#base.messages.concat(tail) }
    const result = await this.#gate.run(request, { ...this.#options, validateOutput: false }).catch((error: unknown) => {
      throw asGiveUp(error, this.#last())
    })
    this.#attempts.push(...result.attempts)
    this.#usage = addUsage(this.#usage, result.usage)
    this.#costUsd += result.costUsd
    return result.response
  }
}
