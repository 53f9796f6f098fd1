import { ProviderError } from '../../model/provider-error.ts'
import type { ModelRequest } from '../../model/request.ts'
import type { ModelResponse } from '../../model/response.ts'
import type { RecordedAttempt, RecordedCall } from './recorded-call.ts'
import { tailOf } from './recorded-calls.ts'

/** Where a replay asked the model something the trace never recorded; the call stops there. */
export interface NeedsModelAnswer {
  /** The replayed attempt that needed it. */
  readonly attempt: number
  readonly provider: string
  readonly reason: string
}

/**
 * The recorded answers of one call, handed out per provider in the order they were recorded: the
 * n-th call the replay makes to a provider gets the n-th answer that provider gave (what a scripted
 * provider would answer). An attempt the gate never sent to the model (an open breaker) holds no
 * answer. Asking for one more than was recorded is a {@link NeedsModelAnswer}: the run is aborted
 * there, and no answer is ever made up.
 */
export class RecordedAnswers {
  readonly #queues = new Map<string, RecordedAttempt[]>()
  readonly #stop: AbortController
  /** The attempt the replayed gate is on (from its `attempt_start`). */
  attempt = 0
  /** The recorded attempt the last answer came from. */
  #served: RecordedAttempt | undefined
  needsModelAnswer: NeedsModelAnswer | undefined
  /** Replayed attempts whose ephemeral tail differs from the one the recorded answer was given after. */
  readonly requestChanged: number[] = []

  constructor(call: RecordedCall, stop: AbortController) {
    this.#stop = stop
    for (const a of call.attempts) {
      if (a.answer.kind === 'no-call') continue
      const queue = this.#queues.get(a.provider) ?? []
      queue.push(a)
      this.#queues.set(a.provider, queue)
    }
  }

  /**
   * Prices a replayed attempt at what the recorded attempt it answered cost (`NaN`, unpriced, when
   * the trace says it could not be priced): a replay without pricing of its own costs what the
   * recording did.
   */
  recordedPrice(): number {
    return this.#served?.costUsd ?? Number.NaN
  }

  /** The next recorded answer of provider `name`, as that provider's call answers it. */
  async answer(name: string, request: ModelRequest): Promise<ModelResponse> {
    const next = this.#queues.get(name)?.shift()
    if (next === undefined) {
      const recorded = this.#queues.has(name) ? 'no further answer from it was recorded' : 'the trace holds no answer from it'
      this.needsModelAnswer = { attempt: this.attempt, provider: name, reason: `the replay asked ${JSON.stringify(name)} and ${recorded}` }
      this.#stop.abort(new Error(this.needsModelAnswer.reason))
      throw new ProviderError(this.needsModelAnswer.reason, { kind: 'aborted', provider: name })
    }
    this.#served = next
    const tail = JSON.stringify(tailOf(request.messages.filter((m) => m.ephemeral === true)))
    if (tail !== next.tail) this.requestChanged.push(this.attempt)
    const answer = next.answer
    if (answer.kind === 'response') return structuredClone(answer.response)
    const message = answer.kind === 'error' ? answer.message : undefined
    throw new ProviderError(message ?? `replayed ${answer.errorKind} (recorded on attempt ${next.attempt})`, { kind: answer.errorKind, provider: name })
  }
}
