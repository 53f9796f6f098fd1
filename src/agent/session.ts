import { runOptionsProblem, streamOptionsProblem } from '../gate/request-problem.ts'
import type { GateStream, GateStreamOptions } from '../gate/stream/index.ts'
import type { Message } from '../model/message.ts'
import { AgentRun } from './agent-run.ts'
import type { AgentRuntime } from './agent-runtime.ts'
import { messageOf, type RunInput, type RunOptions } from './run-input.ts'
import { streamRun } from './stream-run.ts'
import type { RunResult } from './run-result.ts'

const NO_OPTIONS: RunOptions = Object.freeze({})
// Never mutated: the first commit replaces it.
const NO_HISTORY: readonly Message[] = []
const FROZEN_EMPTY: readonly Message[] = Object.freeze([])
const textOf = (result: RunResult<unknown>): string => result.text
const valueOfResult = (result: RunResult<unknown>): unknown => result.value
const whole = <T>(result: RunResult<T>): RunResult<T> => result

/**
 * One conversation with an agent: its persisted history and the runs on it.
 *
 * Only accepted exchanges are committed, atomically at the end of a successful run: the user
 * message, each tool turn (with the final arguments of every call) and its results, and the answer.
 * No ephemeral feedback, no rejected answer or argument ever enters the history, and a failed run
 * leaves it as it was. Sessions of one agent share its gate and events, never their messages.
 */
export class Session<T> {
  readonly #runtime: AgentRuntime<T>
  // Replaced, never mutated, on each commit; frozen when first read (freezing on every commit would
  // cost each run, and a frozen array takes the slow path of the next commit's concat).
  #history: readonly Message[] = NO_HISTORY

  /** @internal use `agent.session()` */
  constructor(runtime: AgentRuntime<T>) {
    this.#runtime = runtime
  }

  /** The persisted history (a frozen snapshot). */
  get history(): readonly Message[] {
    const history = this.#history
    if (history.length === 0) return FROZEN_EMPTY
    return Object.isFrozen(history) ? history : Object.freeze(history)
  }

  /** Runs one exchange and returns the answer's text. */
  run(input: RunInput, options?: RunOptions): Promise<string> {
    return this.#start(input, options, textOf)
  }

  /**
   * Runs one exchange and returns the validated value; throws `ReliabilityFailFastError` when the gate
   * gives up. A type argument names the value's type instead of the schema's (see `Agent.runTyped`).
   */
  runTyped<R = T>(input: RunInput, options?: RunOptions): Promise<R> {
    return this.#start(input, options, valueOfResult as (result: RunResult<T>) => R)
  }

  /** Runs one exchange (the whole tool loop) and returns everything it produced. */
  runDetailed(input: RunInput, options?: RunOptions): Promise<RunResult<T>> {
    return this.#start(input, options, whole<T>)
  }

  #start<R>(input: RunInput, options: RunOptions | undefined, project: (result: RunResult<T>) => R): Promise<R> {
    let user: Message
    try {
      user = { role: 'user', content: messageOf(input) }
      const problem = runOptionsProblem(options)
      if (problem !== undefined) throw new TypeError(`agent.run: ${problem}`)
    } catch (error) {
      return Promise.reject(error)
    }
    const rt = this.#runtime
    return new AgentRun(rt, this.#history, user, options ?? NO_OPTIONS, this.#commit, project).run()
  }

  /** Appends a run's exchange to the history as it is now (not as it was when the run started), in one step. */
  readonly #commit = (exchange: readonly Message[]): void => {
    this.#history = this.#history.length === 0 ? exchange.slice() : this.#history.concat(exchange)
  }

  /**
   * Streams one model turn through `gate.stream` (`mode`: passthrough, buffer or progressive).
   * Tools are not offered (use `runDetailed` for the tool loop); the accepted exchange is committed
   * like `runDetailed` does, when `result` settles.
   */
  stream(input: RunInput, options: RunOptions & Pick<GateStreamOptions, 'mode'> = {}): GateStream<T> {
    const problem = streamOptionsProblem(options)
    if (problem !== undefined) throw new TypeError(`agent.stream: ${problem}`)
    return streamRun(this.#runtime, this.#history, { role: 'user', content: messageOf(input) }, options, this.#commit)
  }

  /** Forgets the persisted history. */
  reset(): void {
    this.#history = NO_HISTORY
  }
}
