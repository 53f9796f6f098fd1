import { newRunId } from '../events/run-id.ts'
import { isReliabilityFailFastError, ReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import type { GateResult } from '../gate/gate-result.ts'
import type { Message } from '../model/message.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'
import { ZERO_USAGE } from '../model/usage.ts'
import type { Phase } from '../rules/scope.ts'
import type { ValidationFailure } from '../validation/validation-failure.ts'
import type { AgentRuntime } from './agent-runtime.ts'
import type { FunctionCall } from './function-call.ts'
import { applyOutputFallback, handlesError } from './output-fallback.ts'
import { RunLedger } from './run-ledger.ts'
import type { RunOptions } from './run-input.ts'
import type { RunResult } from './run-result.ts'
import { runToolCall, type ToolCallHost } from './tool-call-run.ts'

/**
 * One agent run: the ReAct loop. Each model turn goes through the gate; the tool calls of a turn
 * are settled one by one (argument retries included) and their results appended; the loop ends on a
 * final answer, or fails after `maxIterations` turns. Nothing is committed here: the session
 * commits `result.exchange` when the run succeeds.
 */
export class AgentRun<T> {
  readonly #rt: AgentRuntime<T>
  readonly #history: readonly Message[]
  readonly #user: Message
  readonly #signal: AbortSignal | undefined
  readonly #runId: string
  readonly #metadata: RunOptions['metadata']
  readonly #ledger = new RunLedger()
  /** The accepted messages of this run after the user's: tool turns and their results. */
  readonly #turns: Message[] = []
  readonly #calls: FunctionCall[] = []
  #turnCount = 0
  #toolArgFailures = 0
  #budgetWarned = false

  constructor(rt: AgentRuntime<T>, history: readonly Message[], user: Message, options: RunOptions) {
    this.#rt = rt
    this.#history = history
    this.#user = user
    this.#signal = options.signal
    this.#runId = options.runId ?? newRunId()
    this.#metadata = options.metadata
  }

  async run(): Promise<RunResult<T>> {
    try {
      return await this.#loop()
    } catch (error) {
      const fallback = this.#rt.outputFallback
      if (fallback === undefined || !isReliabilityFailFastError(error) || !handlesError(fallback, error)) throw error
      const answer = await applyOutputFallback(fallback, error, this.#rt.outputSchema, this.#rt.events, this.#runId)
      if (answer === undefined) throw error
      const response: ModelResponse = { content: answer.text, toolCalls: [], usage: ZERO_USAGE, stopReason: 'end' }
      return this.#finish(response, answer.value, {
        provider: answer.tier === 'canned' ? 'canned' : 'output-fallback',
        fromFallback: true,
        outputFallback: answer.tier,
        warnings: undefined,
      })
    }
  }

  async #loop(): Promise<RunResult<T>> {
    const rt = this.#rt
    for (;;) {
      this.#turnCount++
      const messages = this.#conversation()
      const result = await this.#callGate(messages, true)
      const { response } = result
      if (response.toolCalls.length === 0) {
        return this.#finish(response, result.value, { provider: result.provider, fromFallback: result.fromFallback, outputFallback: undefined, warnings: result.warnings })
      }
      // Tool results of the last allowed turn could never be read: stop before running them.
      if (this.#turnCount >= rt.maxIterations) {
        const names = [...new Set(response.toolCalls.map((c) => c.name))].join(', ')
        throw this.#fail('max-iterations', `no final answer after ${this.#turnCount} model turns (maxIterations = ${rt.maxIterations}); the last turn still called: ${names}`, 'post-decide')
      }
      const host = this.#toolHost()
      const settled = []
      for (const call of response.toolCalls) settled.push(await runToolCall(host, call, messages))
      this.#turns.push({ role: 'assistant', content: response.content, toolCalls: settled.map((s) => s.call) }, ...settled.map((s) => s.result))
      this.#calls.push(...settled.map((s) => s.entry))
    }
  }

  /** The conversation of the next turn: history, the user's message, and this run's accepted turns. */
  #conversation(): readonly Message[] {
    return this.#history.concat(this.#user, this.#turns)
  }

  #toolHost(): ToolCallHost {
    return {
      runtime: this.#rt as AgentRuntime<unknown>,
      runId: this.#runId,
      signal: this.#signal,
      askAgain: async (messages) => (await this.#callGate(messages, false)).response,
      validationFailed: (failure, attempt) => this.#toolArgsFailed(failure, attempt),
    }
  }

  /** One model call through the gate: budget first, then the call, billed to the run whatever happens. */
  async #callGate(messages: readonly Message[], validateOutput: boolean): Promise<GateResult<T>> {
    const rt = this.#rt
    this.#checkBudget()
    const request: ModelRequest = {
      ...(rt.system !== undefined ? { system: rt.system } : {}),
      messages,
      ...(rt.toolSpecs.length > 0 ? { tools: rt.toolSpecs } : {}),
    }
    // The gate's run-budget rule checks the retries of this call too, adding what the run spent before it.
    rt.runBudgets?.set(request, (inCall) => this.#overBudget(this.#ledger.costUsd + inCall))
    try {
      const result = await rt.gate.run(request, {
        runId: this.#runId,
        ...(this.#signal !== undefined ? { signal: this.#signal } : {}),
        ...(this.#metadata !== undefined ? { metadata: this.#metadata } : {}),
        ...(validateOutput ? {} : { validateOutput: false }),
      })
      this.#ledger.add(result)
      return result
    } catch (error) {
      if (!isReliabilityFailFastError(error)) throw error
      this.#ledger.add(error)
      throw this.#ledger.widen(error)
    } finally {
      rt.runBudgets?.delete(request)
    }
  }

  /** The run's cumulative cost against the agent's budget, before every gate call. */
  #checkBudget(): void {
    const budget = this.#rt.costBudget
    if (budget === undefined || !this.#overBudget(this.#ledger.costUsd)) return
    throw this.#fail('budget-exceeded', `the run has spent $${this.#ledger.costUsd} of its $${budget.usd} budget; model call #${this.#ledger.gateCalls + 1} was not made`, 'pre-check')
  }

  /** True when the run must halt at `spent`; reports the budget once when it only warns. */
  #overBudget(spent: number): boolean {
    const budget = this.#rt.costBudget
    if (budget === undefined || spent < budget.usd) return false
    const events = this.#rt.events
    if (budget.onExceed === 'warn') {
      if (this.#budgetWarned) return false
      this.#budgetWarned = true
      if (events.has('budget_exceeded')) events.emit('budget_exceeded', { runId: this.#runId, budgetUsd: budget.usd, spentUsd: spent, action: 'warn' })
      return false
    }
    if (events.has('budget_exceeded')) events.emit('budget_exceeded', { runId: this.#runId, budgetUsd: budget.usd, spentUsd: spent, action: 'halt' })
    return true
  }

  #toolArgsFailed(failure: ValidationFailure, attempt: number): void {
    this.#toolArgFailures++
    const events = this.#rt.events
    if (!events.has('validation_failed')) return
    const gateFailures = this.#ledger.attempts.filter((a) => a.validationStage !== undefined).length
    events.emit('validation_failed', {
      runId: this.#runId,
      message: failure.message,
      stage: failure.stage,
      path: failure.path,
      rawOutput: failure.rawOutput,
      issues: failure.issues,
      attempt,
      cumulativeRetries: gateFailures + this.#toolArgFailures,
    })
  }

  #fail(kind: string, reason: string, phase: Phase): ReliabilityFailFastError {
    const events = this.#rt.events
    if (events.has('fail_fast')) events.emit('fail_fast', { runId: this.#runId, attempt: this.#ledger.attempts.length + 1, kind, reason, phase })
    return new ReliabilityFailFastError({ kind, reason, phase, runId: this.#runId, attempts: [...this.#ledger.attempts], usage: this.#ledger.usage, costUsd: this.#ledger.costUsd })
  }

  #finish(
    response: ModelResponse,
    value: T,
    meta: Pick<RunResult<T>, 'provider' | 'fromFallback' | 'outputFallback' | 'warnings'>,
  ): RunResult<T> {
    const answer: Message = { role: 'assistant', content: response.content }
    return {
      runId: this.#runId,
      text: response.content,
      value,
      response,
      functionsCalled: Object.freeze([...this.#calls]),
      attempts: Object.freeze([...this.#ledger.attempts]),
      usage: this.#ledger.usage,
      costUsd: this.#ledger.costUsd,
      turns: this.#turnCount,
      exchange: Object.freeze([this.#user, ...this.#turns, answer]),
      ...meta,
    }
  }
}
