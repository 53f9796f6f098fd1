import { isDurablePort } from '../durable/durable-port-of.ts'
import { isAbortSignal } from '../model/is-abort-signal.ts'
import { option, optionsContract, type OptionCheck, type OptionsSpec } from '../model/options-contract.ts'
import type { GateRunOptions } from './gate-internals.ts'
import type { GateStreamOptions } from './stream/gate-stream-event.ts'

/**
 * The checks of the options every run takes, the gate's and the agent's: the caller's signal, the
 * run's id, its metadata, and its own deadline (a duration: `0`, `NaN`, `'100'` or 2^31 ms would
 * fail the run after the provider was called, or fire after 1 ms).
 */
export const RUN_OPTION_CHECKS = Object.freeze({
  signal: option.where('an AbortSignal', isAbortSignal),
  runId: option.nonEmptyString(),
  metadata: option.object(),
  runTimeoutMs: option.duration(),
}) satisfies Readonly<Record<string, OptionCheck>>

/**
 * A durable-execution port (`restatePort(ctx)`, `dbosPort()`, `memoryDurablePort(...)`): one the
 * library made, or an object of yours with a non-empty `runId` and `step` and `sleep` functions. The
 * one check of `createGate({ durable })`, `gate.run(..., { durable })` and the agent's run options.
 */
export const DURABLE_OPTION: OptionCheck = option.where('a DurablePort (runId, step, sleep)', isDurablePort)

const GATE_RUN_SPEC: OptionsSpec<GateRunOptions> = {
  ...RUN_OPTION_CHECKS,
  durable: DURABLE_OPTION,
  validateOutput: option.boolean(),
  validationFailuresBefore: option.integer(0),
  turn: option.integer(0),
  startProvider: option.integer(0),
}

// The rows by key without a prototype: a lookup by a key of the caller's (`toString`) finds no row, and costs no `Object.hasOwn`.
const GATE_RUN_ROWS: Readonly<Record<string, OptionCheck | undefined>> = Object.freeze(Object.assign(Object.create(null) as object, GATE_RUN_SPEC))

/** `gate.run`'s options, declared once: checked before the run starts, so a refused option never reaches a provider. */
export const GATE_RUN_OPTIONS = optionsContract<GateRunOptions>('gate.run', GATE_RUN_SPEC)

/**
 * {@link GATE_RUN_OPTIONS}' check, on the path every gate call takes (the agent makes one per model
 * call): each own key's row looked up and its value checked, without the array of keys the
 * contract's check makes (it cost each call about 200 ns); anything wrong is handed to the contract, whose
 * error it throws.
 */
export function checkRunOptions(options: GateRunOptions): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    GATE_RUN_OPTIONS.check(options)
    return
  }
  let wrong: boolean
  try {
    wrong = hasWrongOption(options)
  } catch {
    // Keys or a getter that cannot be read (a Proxy that throws): the contract says which, as a TypeError naming it.
    wrong = true
  }
  if (wrong) GATE_RUN_OPTIONS.check(options)
}

function hasWrongOption(options: GateRunOptions): boolean {
  for (const key in options) {
    const check = GATE_RUN_ROWS[key]
    const value = (options as Readonly<Record<string, unknown>>)[key]
    if (check === undefined ? Object.hasOwn(options, key) : value !== undefined && check(value) !== undefined) return true
  }
  return false
}

const STREAM_MODES = ['passthrough', 'buffer', 'progressive'] as const

/** `gate.stream`'s options: `gate.run`'s and the stream's `mode`. */
export const GATE_STREAM_OPTIONS = optionsContract<GateStreamOptions>('gate.stream', {
  ...RUN_OPTION_CHECKS,
  validateOutput: option.boolean(),
  validationFailuresBefore: option.integer(0),
  turn: option.integer(0),
  startProvider: option.integer(0),
  mode: option.oneOf(...STREAM_MODES),
})
