import { ReplayBuffer } from '../events/replay-buffer.ts'
import type { Gate } from '../gate/create-gate.ts'
import type { GateRunOptions } from '../gate/gate-internals.ts'
import type { GateResult } from '../gate/gate-result.ts'
import { shareDeadline, sharedDeadline } from '../gate/run/run-deadline.ts'
import { createGateStream, type GateStream, type GateStreamOptions, type StreamMode } from '../gate/stream/index.ts'
import { isReliabilityFailFastError } from '../gate/fail-fast-error.ts'
import type { ModelRequest } from '../model/request.ts'
import type { ModelResponse } from '../model/response.ts'
import type { AgentRuntime } from './agent-runtime.ts'
import type { AgentStream, AgentStreamEvent } from './agent-stream.ts'
import type { RunResult } from './run-result.ts'

/**
 * The switch that makes an agent run a streamed one (`agent.stream`): the run is the agent's own
 * loop ({@link AgentRun}) on a runtime whose gate runs every call (model turns and tool-argument
 * re-asks) through `gate.stream` in the stream's mode, its events forwarded to the run's stream.
 * So tools, argument retries and guards, `costBudget`, `maxIterations`, the output fallback and the
 * commit are `agent.run`'s, not a copy. `buffer` delivers only the answer's text, once the run has it.
 */
export class StreamedTurns<T> {
  readonly #mode: StreamMode
  readonly #sink = new ReplayBuffer<AgentStreamEvent<T>>()
  /** Buffer mode: each gate call's delivered text, by its accepted response, until the run says which one answers. */
  readonly #held = new WeakMap<ModelResponse, AgentStreamEvent<T>[]>()
  /** Attempts of the run's gate calls so far: the calls are sequential, so the next call's are numbered after them. */
  #attempts = 0

  /** Make it with {@link streamedTurns}, which refuses what a stream cannot honour. */
  constructor(mode: StreamMode) {
    this.#mode = mode
  }

  /** `runtime` with a gate whose `run` streams (see {@link StreamedTurns}), the run's model calls made through it; everything else as it is. */
  runtime(runtime: AgentRuntime<T>): AgentRuntime<T> {
    const gate = runtime.gate
    const streaming: Gate<T> = {
      run: (request, options) => this.#call(gate, request, options ?? {}),
      stream: (request, options) => gate.stream(request, options),
      on: (name, listener) => gate.on(name, listener),
      // A getter: reading the events$ of a gate loads rxjs.
      get events$() {
        return gate.events$
      },
      config: gate.config,
    }
    return { ...runtime, gate: streaming, callGate: streaming.run }
  }

  /** The stream the caller reads. */
  stream(result: Promise<RunResult<T>>): AgentStream<T> {
    return createGateStream(this.#sink, result)
  }

  /** One gate call of the run, streamed; settles with its result once its events are forwarded. */
  #call(gate: Gate<T>, request: ModelRequest, options: GateRunOptions): Promise<GateResult<T>> {
    // A streamed model call is not journaled (its deltas could not be delivered again on replay): no durable port.
    const { durable: _notStreamed, ...plain } = options
    const streamOptions: GateStreamOptions = { ...plain, mode: this.#mode }
    // The run's deadline is shared by identity of the options object: the copy shares it too.
    const deadline = sharedDeadline(options)
    if (deadline !== undefined) shareDeadline(streamOptions, deadline)
    let stream: GateStream<T>
    try {
      stream = gate.stream(request, streamOptions)
    } catch (error) {
      // As gate.run: a misused call answers with a rejection.
      return Promise.reject(error)
    }
    const attemptsBefore = this.#attempts
    return this.#forward(stream, attemptsBefore).then(() =>
      stream.result.then(
        (result) => {
          this.#attempts += result.attempts.length
          return result
        },
        (error: unknown) => {
          if (isReliabilityFailFastError(error)) this.#attempts += error.attempts.length
          throw error
        },
      ),
    )
  }

  /** Ends the stream with the run's answer: its text (held in buffer mode; an output fallback's, never streamed), then the result. */
  end(result: RunResult<T>): void {
    const attempt = result.attempts.length
    const held = this.#held.get(result.response)
    if (held !== undefined) for (const event of held) this.#sink.next(event)
    else if ((this.#mode === 'buffer' || result.outputFallback !== undefined) && result.text !== '')
      this.#sink.next({ type: 'text', text: result.text, attempt })
    this.#sink.next({ type: 'result', result, attempt })
    this.#sink.complete()
  }

  /** Ends the stream with the run's failure. */
  fail(error: unknown): void {
    this.#sink.error(error)
  }

  async #forward(stream: GateStream<T>, attemptsBefore: number): Promise<void> {
    const buffered = this.#mode === 'buffer'
    const held: AgentStreamEvent<T>[] = []
    try {
      for await (const event of stream) {
        if (event.type === 'result') {
          if (held.length > 0) this.#held.set(event.result.response, held)
          continue
        }
        const numbered = { ...event, attempt: event.attempt + attemptsBefore }
        if (buffered) held.push(numbered)
        else this.#sink.next(numbered)
      }
    } catch {
      // The call's failure is its result's: the run decides what it means.
    }
  }
}

/**
 * The streamed turns of one `agent.stream` in `mode`, or a `TypeError` for a combination the
 * stream cannot honour: `progressive` checks each turn's text against the output schema while it
 * streams, so a tool turn's prose would be cut and retried as a bad answer (`agent.run` would not);
 * a gate with a durable port journals its model calls, which a stream's cannot be.
 */
export function streamedTurns<T>(runtime: AgentRuntime<T>, mode: StreamMode): StreamedTurns<T> {
  // Refused before the run starts, as a per-call `durable` is: the run would only reject once started.
  if (runtime.gate.config.durable !== undefined)
    throw new TypeError(
      "agent.stream: this agent's gate has a durable port (reliability({ durable })), whose model calls are journaled, and a streamed call cannot be (a replayed turn could not deliver its deltas again); use agent.runDetailed(input)",
    )
  if (mode === 'progressive' && runtime.tools.size > 0)
    throw new TypeError(
      `agent.stream: mode 'progressive' cannot stream an agent with tools (the text of a tool turn would be checked as the answer); use mode 'buffer' or 'passthrough'`,
    )
  return new StreamedTurns<T>(mode)
}
