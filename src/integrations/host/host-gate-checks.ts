import type { GateConfig } from '../../gate/gate-config.ts'
import { GATE_OPTIONS, type OptionRow } from '../../gate/options/option-table.ts'
import { option, type OptionCheck, type OptionsSpec } from '../../model/options-contract.ts'

/** The gate options a host middleware takes: `createGate`'s, but the providers (the host's model is the provider). */
export type HostGateOptions = Omit<GateConfig<unknown>, 'providers' | 'model' | 'events'>

// The gate checks these when it is made, per call in a middleware: checked here too, so a bad value fails when the middleware is made.
const NUMBERS: Readonly<Record<string, OptionCheck>> = {
  maxFeedbackChars: option.integer(1),
  maxFeedbackTokens: option.integer(1),
  maxAttempts: option.integer(1),
  timeoutMs: option.duration(),
  runTimeoutMs: option.duration(),
}

const LEFT_OUT: readonly string[] = ['providers', 'model', 'events']

/**
 * The rows of a host middleware's options contract for the gate's options, from the gate's own
 * table (so a new gate option reaches the middlewares' contracts too): each row's expected value,
 * the numbers and durations, and anything else (schemas, rules) as it is, checked when compiled.
 */
export function hostGateChecks(): OptionsSpec<HostGateOptions> {
  const spec: Record<string, OptionCheck> = {}
  for (const [key, row] of Object.entries(GATE_OPTIONS) as [string, OptionRow][]) {
    if (LEFT_OUT.includes(key)) continue
    spec[key] = NUMBERS[key] ?? (row.expected === undefined ? option.any() : option.where(row.expected[0], row.expected[1]))
  }
  return spec as unknown as OptionsSpec<HostGateOptions>
}
