import type { EventTags } from '../events/event-map.ts'
import { eventTags } from '../events/event-tags.ts'
import { newRunId } from '../events/run-id.ts'
import { keepShape } from '../model/keep-shape.ts'
import { isReliabilityFailFastError, type ReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import type { GateRunOptions } from '../gate/gate-internals.ts'
import { FailFastKinds } from '../model/fail-fast-kind.ts'
import type { GateResult } from '../gate/gate-result.ts'
import type { Message } from '../model/message.ts'
import { frozenMessage } from '../model/frozen-copy.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'
import type { ToolChoice } from '../model/tool-choice.ts'
import { ZERO_USAGE } from '../model/usage.ts'
import type { Phase } from '../rules/scope.ts'
import type { AgentRuntime } from './agent-runtime.ts'
import type { FunctionCall } from './function-call.ts'
import { handlesError } from './output-fallback.ts'
import { fallbackAnswer } from './guard-fallback-answer.ts'
import { gateCallOptions } from './gate-call-options.ts'
import { RunLedger } from './run-ledger.ts'
import { RunProgress } from './no-progress/run-progress.ts'
import type { FinishedRun, RunEnding, RunResult } from './run-result.ts'
import type { SessionRun } from './session-run.ts'
import { RunCostBudget } from './run-cost-budget.ts'
import { emitAgentRunEnd, toolArgsFailed, endFailed, ENDS_AFTER_COMMIT, runFailure, type RunIdentity, type RunStop } from './run-events.ts'
import type { ToolCallHost } from './tool-call-run.ts'
import { pausedAt, type RunResume } from './approval/run-pause.ts'
import { lastTurnCalled, NOT_AN_ANSWER, settleToolCalls, standingAnswer, standingValue, toolTurnMessages } from './tool-turn.ts'
import { withCallIds } from './turn-call-ids.ts'

// Shared until a run has tool turns to keep (replaced, never mutated, before the first push).
const NO_MESSAGES: readonly Message[] = Object.freeze([])
const NO_CALLS: readonly FunctionCall[] = Object.freeze([])
type Writable<O> = { -readonly [K in keyof O]: O[K] }

/**
 * One agent run: the ReAct loop. Each model turn goes through the gate; the tool calls of a turn
 * are settled one by one (argument retries included) and their results appended; the loop ends on a
 * final answer, or fails after `maxIterations` turns. The accepted exchange goes to the run's
 * `commit` (the session's) when the run succeeds; the caller's projection reads the finished run.
 */
export class AgentRun<T, R = RunResult<T>> implements FinishedRun<T> {
  /** What the run starts from (runtime, history, user message, options, commit, projection), read for the whole run. */
  readonly #start: SessionRun<T, R>
  readonly #runId: string
  readonly #ledger = new RunLedger()
  #turns: readonly Message[] = NO_MESSAGES // The accepted messages of this run after the user's: tool turns and their results.
  #calls: readonly FunctionCall[] = NO_CALLS
  #messages: readonly Message[] = NO_MESSAGES // The conversation of the current turn.
  #turnCount = 0
  readonly #budget: RunCostBudget | undefined // The agent's cost budget for this run (only when the agent has one).
  #retried: WeakMap<ModelResponse, GateResult<T>> | undefined // The gate results of argument retries, by response: a prose reply may stand.
  #model = 0 // The provider (its index) that made the latest tool calls: an argument retry asks it again (the seed's "same model").
  #progress: RunProgress | undefined // The no-progress ladder, made at the first tool turn: none for a run answered at once (~110 B).
  /** How the run ended, and the exchange it committed: what its projection reads (see {@link FinishedRun}). */
  #ending: RunEnding<T> | undefined
  #exchange: readonly Message[] = NO_MESSAGES

  constructor(start: SessionRun<T, R>) {
    const rt = start.runtime
    this.#start = start
    this.#budget = rt.costBudget === undefined ? undefined : new RunCostBudget(rt.costBudget, this.#ledger, () => this.#who())
    this.#runId = start.options.runId ?? newRunId()
  }

  get #rt(): AgentRuntime<T> {
    return this.#start.runtime
  }
  /** What every wait of the run reads: the deadline's signal (which joins the caller's), else the caller's. */
  get #signal(): AbortSignal | undefined {
    const { deadline, signal } = this.#start.options
    return deadline === undefined ? signal : deadline.signal
  }

  /** Runs the loop; promise reactions, not async functions: a run that answers in one turn allocates no async frame. */
  run(): Promise<R> {
    const events = this.#rt.events
    if (events.has('agent_run_start')) events.emit('agent_run_start', { runId: this.#runId, ...this.#tags(), agent: this.#rt.name })
    const done = this.#start.options.resume === undefined ? this.#turn() : this.#resumed(this.#start.options.resume)
    const answered = this.#rt.outputFallback === undefined ? done : done.catch((error: unknown) => this.#useOutputFallback(error))
    return events.has('agent_run_end')
      ? answered.catch((error: unknown) => endFailed(events, this.#who(), { turns: this.#turnCount, spent: this.#ledger }, error))
      : answered
  }

  /** What the run's own events carry besides its id: the current turn and the caller's metadata. */
  #tags(): EventTags {
    return eventTags(this.#turnCount, this.#start.options.metadata)
  }
  #who(): RunIdentity {
    return { runId: this.#runId, tags: this.#tags(), agent: this.#rt.name }
  }

  /** One model turn: the gate call, then the answer or the turn's tool calls and the next turn. */
  #turn(): Promise<R> {
    this.#turnCount++
    this.#messages = RunProgress.conversation(this.#progress, this.#conversation())
    let call: Promise<GateResult<T>>
    try {
      call = this.#callGate(this.#messages, true)
    } catch (error) {
      // The run's own budget stopped the call: nothing was spent, nothing to bill.
      return Promise.reject(error)
    }
    return call.then(this.#onTurn, this.#onGateError)
  }

  readonly #onTurn = (result: GateResult<T>): R | Promise<R> => {
    this.#called(result)
    return this.#afterTurn(result)
  }

  readonly #onGateError = (error: unknown): never => {
    this.#budget?.settled()
    if (!isReliabilityFailFastError(error)) throw error
    this.#ledger.add(error)
    throw this.#ledger.widen(error)
  }

  /** Bills a gate call that answered to the run. */
  #called(result: GateResult<T>): void {
    this.#budget?.settled()
    this.#ledger.add(result)
    this.#model = result.providerIdx
  }

  #afterTurn(result: GateResult<T>): R | Promise<R> {
    const { response } = result
    if (response.toolCalls.length === 0) {
      return this.#finish(result)
    }
    // Tool results of the last allowed turn could never be read: stop before running them.
    if (this.#turnCount >= this.#rt.maxIterations)
      throw this.#fail('max-iterations', lastTurnCalled(response, this.#turnCount, this.#rt.maxIterations), 'post-decide')
    return this.#tools(withCallIds(response, this.#runId, this.#turnCount))
  }

  /** The turn's tool calls, then the next turn (or the prose reply that stands). */
  #tools(response: ModelResponse): Promise<R> {
    return this.#runTools(response, this.#messages).then((answer) => (answer === undefined ? this.#turn() : this.#stand(answer)))
  }

  /** The seed's `llm_gave_up`: a retry's prose reply stands as the answer when it passes like any final answer; else the run goes on. */
  async #stand(answer: ModelResponse): Promise<R> {
    const result = this.#retried?.get(answer)
    const value = await standingValue(answer, this.#rt.outputSchema, this.#signal)
    if (result === undefined || value === NOT_AN_ANSWER) return this.#turn()
    return this.#finish({ ...result, response: answer, value })
  }

  /** A run resumed from an approval's pause: the paused turn's tool calls from the paused one on, then the loop. */
  #resumed({ state }: RunResume): Promise<R> {
    ;({ turn: this.#turnCount, turns: this.#turns, calls: this.#calls } = state)
    this.#messages = this.#conversation()
    return this.#tools(state.response)
  }

  /** Settles and keeps the turn's tool calls (retries included); returns a prose reply that stands (an aborted run stops here). */
  async #runTools(response: ModelResponse, messages: readonly Message[]): Promise<ModelResponse | undefined> {
    const abort = () => this.#fail('aborted', `the run was aborted while running the tool calls of model turn ${this.#turnCount}`, 'post-decide')
    const at = { user: this.#start.user, turn: this.#turnCount, turns: this.#turns, calls: this.#calls, response }
    const turn = { response, messages, aborted: abort, resume: this.#start.options.resume }
    const settled = await settleToolCalls(this.#toolHost(), turn).catch((error: unknown) => Promise.reject(pausedAt(error, at)))
    this.#turns = this.#turns.concat(toolTurnMessages(response, settled))
    this.#calls = this.#calls.concat(settled.map((s) => s.entry))
    this.#progress ??= RunProgress.of(this.#rt.noProgress, this.#rt.events, (reason) => this.#fail(FailFastKinds.NoProgress, reason, 'post-decide'))
    this.#progress?.afterTurn(response, settled, this.#ledger, this.#who())
    return standingAnswer(settled)
  }

  /** Tiers 2 and 3 for a failure the output fallback handles; anything else is rethrown as it is. An aborted run ends aborted, not with its fallback's answer. */
  async #useOutputFallback(error: unknown): Promise<R> {
    const fallback = this.#rt.outputFallback
    if (fallback === undefined || !isReliabilityFailFastError(error) || !handlesError(fallback, error)) throw error
    const fail = (kind: string, reason: string) => this.#fail(kind, reason, 'post-decide')
    const answer = await fallbackAnswer(this.#rt, fallback, error, { who: this.#who(), signal: this.#signal, fail })
    const response: ModelResponse = { content: answer.text, toolCalls: [], usage: ZERO_USAGE, stopReason: 'end' }
    const provider = answer.tier === 'canned' ? 'canned' : 'output-fallback'
    return this.#finish({ response, value: answer.value, provider, fromFallback: true, outputFallback: answer.tier, warnings: undefined })
  }

  /** The conversation of the next turn: history, the user's message, and this run's accepted turns. */
  #conversation(): readonly Message[] {
    const { history, user } = this.#start
    if (this.#turns.length === 0) return history.length === 0 ? [user] : history.concat(user)
    return history.concat(user, this.#turns)
  }

  #toolHost(): ToolCallHost {
    const report = { events: this.#rt.events, ledger: this.#ledger, who: () => this.#who() }
    return {
      runtime: this.#rt as AgentRuntime<unknown>,
      runId: this.#runId,
      tags: this.#tags(),
      signal: this.#signal,
      askAgain: async (messages, toolChoice) => {
        const result = await this.#callGate(messages, false, toolChoice).catch(this.#onGateError)
        this.#called(result)
        ;(this.#retried ??= new WeakMap()).set(result.response, result)
        return result.response
      },
      fail: (kind, reason, failure) => this.#fail(kind, reason, 'post-decide', failure),
      withheld: this.#progress?.withheld,
      durable: this.#start.options.durableTools?.at(this.#turnCount),
      validationFailed: (failure, attempt) => toolArgsFailed(report, failure, attempt),
    }
  }

  /** One gate call, budget first (a spent one throws before any call), with a forced re-ask's `toolChoice`; the caller bills it. */
  #callGate(messages: readonly Message[], validateOutput: boolean, toolChoice?: ToolChoice): Promise<GateResult<T>> {
    const rt = this.#rt
    const budget = this.#budget
    const refusal = budget?.refusal()
    if (refusal !== undefined) throw this.#fail('budget-exceeded', refusal, 'pre-check')
    const request: Writable<ModelRequest> = { messages }
    if (rt.system !== undefined) request.system = rt.system
    if (rt.toolSpecs.length > 0) request.tools = rt.toolSpecs
    if (toolChoice !== undefined) request.toolChoice = toolChoice
    if (validateOutput) this.#progress?.force(request)
    // The gate's run-budget rule checks the retries of this call too, adding what the run spent before it.
    budget?.watch(request)
    // The gate's defaults (the answer validated, no failure before) are left out: nothing for it to check or copy.
    const call: Writable<GateRunOptions> = { runId: this.#runId, turn: this.#turnCount }
    // A tool-argument retry goes to the model that made the call, wherever the turn failed over to.
    if (!validateOutput) Object.assign(call, { validateOutput: false, startProvider: this.#model })
    const failuresBefore = this.#ledger.gateCalls === 0 ? 0 : this.#ledger.validationFailures
    if (failuresBefore > 0) call.validationFailuresBefore = failuresBefore
    return rt.callGate(request, gateCallOptions(call, this.#start.options))
  }

  /** The run's fail-fast error; past the run's own deadline it is `run-timeout`, whatever stopped first. */
  #fail(kind: string, reason: string, phase: Phase, failure?: RunStop['failure']): ReliabilityFailFastError {
    const late = this.#start.options.deadline?.expired === true
    const why = late ? `the run did not finish within runTimeoutMs (${reason})` : reason
    return runFailure(this.#rt.events, this.#who(), this.#ledger, { kind: late ? FailFastKinds.RunTimeout : kind, reason: why, phase, failure })
  }

  /**
   * The run's exchange (the library's own frozen messages, what the history commits), committed, then the caller's projection
   * of the run. The array itself is frozen when first read (the session's history, `result().exchange`), never per run.
   */
  #finish(ended: RunEnding<T>): R {
    const { response, outputFallback } = ended
    const answer: Message = Object.freeze({ role: 'assistant', content: response.content })
    // The session hands a frozen user message: its own copy, kept as it is.
    const user = frozenMessage(this.#start.user)
    const exchange = this.#turns.length === 0 ? [user, answer] : [user, ...this.#turns.map(frozenMessage), answer]
    this.#ending = ended
    this.#exchange = exchange
    const events = this.#rt.events
    if (this.#start.committer.commit(exchange) !== ENDS_AFTER_COMMIT && events.has('agent_run_end'))
      emitAgentRunEnd(events, this.#who(), { outcome: 'ok', kind: 'ok', turns: this.#turnCount, outputFallback }, this.#ledger)
    return this.#start.project(this)
  }

  /** The answer's text (read by a projection, once the run finished). */
  get text(): string {
    return (this.#ending as RunEnding<T>).response.content
  }

  /** The answer's value (read by a projection, once the run finished). */
  get value(): T {
    return (this.#ending as RunEnding<T>).value
  }

  /** The whole result of the finished run (`runDetailed`'s), made when a projection asks for it. */
  result(): RunResult<T> {
    const ended = this.#ending as RunEnding<T>
    return {
      runId: this.#runId,
      text: ended.response.content,
      value: ended.value,
      response: ended.response,
      functionsCalled: this.#calls,
      ...this.#ledger.spent(),
      turns: this.#turnCount,
      exchange: Object.freeze(this.#exchange),
      provider: ended.provider,
      fromFallback: ended.fromFallback,
      outputFallback: ended.outputFallback,
      warnings: ended.warnings,
    }
  }
}

// A run that holds nothing, kept for its hidden class and its ledger's (see keepShape).
const ignore = (): undefined => undefined
keepShape(
  new AgentRun({
    runtime: Object.freeze({}) as AgentRuntime<unknown>,
    history: [],
    user: { role: 'user', content: '' },
    options: { runId: '' },
    committer: { commit: ignore },
    project: ignore,
  }),
)
