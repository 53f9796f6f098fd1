import type { SignalOutcome } from './durable-port.ts'
import type { JournalEntry } from './journal-entry.ts'

/**
 * What {@link durablePort} needs of an engine: the run's id, a journaled action run at most once
 * (with the engine's retries off: the action never throws, its failures are journaled as data), and a
 * durable sleep. `restatePort` and `dbosPort` are this over their engines; another engine is a few lines.
 */
export interface DurableEngine {
  /** The run's id, the same on every replay. */
  readonly runId: string
  /**
   * Runs `action` once and journals its entry under `name`; on replay answers the journaled entry
   * without running it (the engine may hand it back as an object or as JSON text).
   */
  run(name: string, action: () => Promise<JournalEntry>): PromiseLike<unknown>
  /** Sleeps `ms` milliseconds durably under `name`; `signal` (the run's, when given) may end an in-process wait early. */
  sleep(name: string, ms: number, signal?: AbortSignal): PromiseLike<void>
  /** Optional: waits durably, at most `timeoutMs`, for a value sent to the run under `name` (see `DurablePort.awaitSignal`). */
  signal?(name: string, timeoutMs: number): PromiseLike<SignalOutcome>
}
