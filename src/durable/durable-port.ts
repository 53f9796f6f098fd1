/**
 * What a durable-execution engine gives a run: its id, and two journaled operations. A run given a
 * port survives its process: on resume the engine replays the run from the start, and every `step`
 * that finished before the crash answers its journaled outcome instead of running again.
 *
 * @example
 * const port = restatePort(ctx) // or dbosPort(), or memoryDurablePort({ runId, journal }) in tests
 * const refund = await port.step('refund', () => payments.refund(order, { idempotencyKey: `${port.runId}:refund` }))
 */
export interface DurablePort {
  /** The run's id, from the engine (the workflow's key or id): the same on every replay of the run. */
  readonly runId: string
  /**
   * Runs `fn` at most once per run and `name`, and answers its journaled outcome: a success as plain
   * data (JSON), a failure rebuilt into the library's error classes (`ProviderError` keeps its kind,
   * status and retry-after). The engine's own retries are off: only the gate's rules retry. A `name`
   * used twice in one run is refused with a `DurableRunError` (`step-reused`); a replay whose steps
   * differ from the journal's fails fast with one (`divergence`), as does a journal entry that cannot be
   * read (`corrupt-entry`).
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>
  /**
   * Waits `ms` milliseconds durably: a resumed run does not wait again for time already slept. `signal`, when given, is
   * the run's: a port that sleeps in this process (`memoryDurablePort`) stops waiting when it aborts, and journals no
   * sleep (an engine's durable timer lives in the engine).
   */
  sleep(name: string, ms: number, signal?: AbortSignal): Promise<void>
  /**
   * Optional: waits durably, at most `timeoutMs`, for a value sent to this run under `name` (a
   * Restate workflow's promise, a DBOS message topic): the wait survives restarts, and on replay
   * answers what it received the first time. A run pauses on it for a human's approval.
   */
  awaitSignal?(name: string, timeoutMs: number): Promise<SignalOutcome>
}

/** What {@link DurablePort.awaitSignal} received: the value sent, or nothing before the timeout. */
export type SignalOutcome = { readonly received: true; readonly value: unknown } | { readonly received: false }
