import type { Gate } from '../gate/create-gate.ts'
import type { Message } from '../model/message.ts'
import { messageOf, type RunInput, type RunOptions } from './run-input.ts'
import type { RunResult } from './run-result.ts'

/**
 * One conversation with an agent: its persisted history and the runs on it.
 *
 * Only accepted exchanges are committed, atomically at the end of a successful run: no ephemeral
 * feedback and no rejected answer ever enters the history, and a failed run leaves it as it was.
 */
export class Session<T> {
  readonly #gate: Gate<T>
  readonly #system: string | undefined
  #history: readonly Message[] = Object.freeze([])

  constructor(gate: Gate<T>, system: string | undefined) {
    this.#gate = gate
    this.#system = system
  }

  /** The persisted history (a frozen snapshot). */
  get history(): readonly Message[] {
    return this.#history
  }

  /** Runs one exchange and returns the answer's text. */
  async run(input: RunInput, options?: RunOptions): Promise<string> {
    return (await this.runDetailed(input, options)).text
  }

  /** Runs one exchange and returns the validated value; throws `ReliabilityFailFastError` when the gate gives up. */
  async runTyped(input: RunInput, options?: RunOptions): Promise<T> {
    return (await this.runDetailed(input, options)).value
  }

  /** Runs one exchange and returns everything it produced. */
  async runDetailed(input: RunInput, options: RunOptions = {}): Promise<RunResult<T>> {
    const user: Message = { role: 'user', content: messageOf(input) }
    const messages = this.#history.concat(user)
    const result = await this.#gate.run(
      { ...(this.#system !== undefined ? { system: this.#system } : {}), messages },
      options.signal !== undefined ? { signal: options.signal } : {},
    )
    const answer: Message = { role: 'assistant', content: result.response.content }
    // Append to the history as it is now (not as it was when the run started), in one step.
    this.#history = Object.freeze(this.#history.concat(user, answer))
    return {
      text: result.response.content,
      value: result.value,
      response: result.response,
      attempts: result.attempts,
      usage: result.usage,
      costUsd: result.costUsd,
      provider: result.provider,
      fromFallback: result.fromFallback,
      warnings: result.warnings,
    }
  }

  /** Forgets the persisted history. */
  reset(): void {
    this.#history = Object.freeze([])
  }
}
