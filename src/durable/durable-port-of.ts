import { brand, hasBrand } from '../model/brand.ts'
import { messageOf } from '../model/message-of.ts'
import { MAX_TIMER_MS, option, optionsContract } from '../model/options-contract.ts'
import type { DurableEngine } from './durable-engine.ts'
import type { DurablePort, SignalOutcome } from './durable-port.ts'
import { DurableRunError, isDurableRunError } from './durable-run-error.ts'
import { decodeEntry, encodeFailure, encodeSuccess, type StepPosition } from './journal-codec.ts'
import type { JournalEntry } from './journal-entry.ts'

const BRAND = Symbol.for('reliability-gate.DurablePort')

/** Step and sleep names: at most this many characters (an engine journals them with every entry). */
export const MAX_STEP_NAME = 256

const ENGINE = optionsContract<DurableEngine>('durablePort', {
  runId: option.nonEmptyString(),
  run: option.function(),
  sleep: option.function(),
  signal: option.function(),
})

/**
 * A {@link DurablePort} over an engine's journal: each step's outcome journaled as plain data (a
 * failure as its class, kind, status, retry-after and message), a step name used twice in one run
 * refused, and a replay whose steps differ from the journal (by position or name) refused, typed.
 *
 * @example
 * // Any engine with a journaled action and a durable sleep:
 * const port = durablePort({ runId: workflowId, run: (name, action) => engine.step(name, action), sleep: (name, ms) => engine.sleep(ms) })
 */
export function durablePort(given: DurableEngine): DurablePort {
  const engine = ENGINE.check(given)
  const { runId } = engine
  const used = new Set<string>()
  let seq = 0
  const position = (name: unknown): StepPosition => {
    if (typeof name !== 'string' || name === '' || name.length > MAX_STEP_NAME) {
      throw new DurableRunError('invalid-step', {
        runId,
        step: typeof name === 'string' ? name.slice(0, MAX_STEP_NAME) : `(${typeof name})`,
        reason: `a step name is a string of 1 to ${MAX_STEP_NAME} characters`,
      })
    }
    if (used.has(name))
      throw new DurableRunError('step-reused', {
        runId,
        step: name,
        reason: 'this name already named a step or sleep of this run: each runs at most once per run and name',
      })
    used.add(name)
    return { runId, seq: seq++, name }
  }
  const port: { -readonly [K in keyof DurablePort]: DurablePort[K] } = {
    runId,
    async step<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
      if (typeof fn !== 'function') throw new TypeError(`durable step ${JSON.stringify(name)}: fn must be a function`)
      const at = position(name)
      // `fn` runs at most once whatever the engine does: one that calls the action again (a retry of its own) gets the first entry.
      let entry: Promise<JournalEntry> | undefined
      const action = async (): Promise<JournalEntry> => {
        try {
          return encodeSuccess(at, await fn())
        } catch (error) {
          return encodeFailure(at, error)
        }
      }
      let raw: unknown
      try {
        raw = await engine.run(name, () => (entry ??= action()))
      } catch (cause) {
        // An engine of this library's (memoryDurablePort) refuses another run's entry: its refusal is kept as it is.
        if (isDurableRunError(cause)) throw cause
        // The action never throws: a rejection is the engine's own (cancelled, unreachable), not the step's outcome.
        throw new DurableRunError('engine-failed', { runId, step: name, reason: `the engine did not run or journal the step: ${messageOf(cause)}`, cause })
      }
      const outcome = decodeEntry(at, raw)
      if (!outcome.ok) throw outcome.error
      return outcome.value as T
    },
    async sleep(name: string, ms: number, signal?: AbortSignal): Promise<void> {
      if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_TIMER_MS)
        throw new RangeError(`durable sleep ${JSON.stringify(name)}: ms must be whole milliseconds from 0 to ${MAX_TIMER_MS}, got ${String(ms)}`)
      position(name)
      try {
        await (signal === undefined ? engine.sleep(name, ms) : engine.sleep(name, ms, signal))
      } catch (cause) {
        // An engine of this library's (memoryDurablePort) checks a replayed sleep's place: its refusal is kept as it is,
        // as is a wait the run's abort ended.
        if (isDurableRunError(cause) || signal?.aborted === true) throw cause
        throw new DurableRunError('engine-failed', { runId, step: name, reason: `the engine did not sleep or journal the sleep: ${messageOf(cause)}`, cause })
      }
    },
  }
  const signal = engine.signal
  if (signal !== undefined) port.awaitSignal = (name, timeoutMs) => awaitSignal(runId, name, timeoutMs, (n, ms) => signal.call(engine, n, ms))
  return Object.freeze(brand(port, BRAND))
}

/** One signal wait of the engine's, its name and timeout checked, an engine failure typed. */
async function awaitSignal(runId: string, name: string, timeoutMs: number, signal: NonNullable<DurableEngine['signal']>): Promise<SignalOutcome> {
  if (typeof name !== 'string' || name === '' || name.length > MAX_STEP_NAME)
    throw new DurableRunError('invalid-step', {
      runId,
      step: String(name).slice(0, MAX_STEP_NAME),
      reason: `a signal name is a string of 1 to ${MAX_STEP_NAME} characters`,
    })
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS)
    throw new RangeError(`durable signal ${JSON.stringify(name)}: timeoutMs must be whole milliseconds from 1 to ${MAX_TIMER_MS}, got ${String(timeoutMs)}`)
  let outcome: SignalOutcome
  try {
    outcome = await signal(name, timeoutMs)
  } catch (cause) {
    throw new DurableRunError('engine-failed', { runId, step: name, reason: `the engine did not deliver the signal: ${messageOf(cause)}`, cause })
  }
  if (typeof outcome !== 'object' || outcome === null || typeof outcome.received !== 'boolean')
    throw new DurableRunError('engine-failed', { runId, step: name, reason: 'the engine answered the signal with no { received } outcome' })
  return outcome.received ? { received: true, value: outcome.value } : { received: false }
}

/**
 * True for a {@link DurablePort}: one {@link durablePort} made (and so `restatePort`, `dbosPort` and
 * `memoryDurablePort`), across package copies, or an object of yours with a non-empty `runId` and
 * `step` and `sleep` functions.
 */
export function isDurablePort(value: unknown): value is DurablePort {
  if (hasBrand(value, BRAND)) return true
  if (typeof value !== 'object' || value === null) return false
  const port = value as Partial<Record<keyof DurablePort, unknown>>
  try {
    return typeof port.runId === 'string' && port.runId !== '' && typeof port.step === 'function' && typeof port.sleep === 'function'
  } catch {
    // A value whose fields cannot be read (a throwing getter, a revoked proxy) is no port: a type guard answers, never throws.
    return false
  }
}
