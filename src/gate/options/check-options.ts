import { shownValue, typeName } from '../../model/describe-value.ts'
import { isRecord } from '../../model/is-record.ts'
import { refuseUnknownOptions } from '../../model/known-options.ts'
import { option, readOption } from '../../model/options-contract.ts'
import type { GateConfig } from '../gate-config.ts'
import { GATE_OPTIONS, GATE_OPTION_NAMES, type OptionRow } from './option-table.ts'

/**
 * Throws a `TypeError` naming the first option of a gate's config (or an agent's reliability
 * options, which become one) that is misspelt (`outputschema`, `maxRetries`: an option nobody reads
 * would leave a JavaScript user ungated without a word) or whose value has the wrong type, so that a
 * typo fails where it is written. `label`: `createGate` or the agent's; `extra`: keys the caller
 * itself takes beside the gate's. Answers the gate's options as checked: each read once, in an object
 * of their own (the `extra` keys are the caller's to read).
 */
export function checkConfig(config: unknown, label = 'createGate', extra: readonly string[] = []): GateConfig<unknown> {
  if (!isRecord(config)) throw new TypeError(`${label}: expected an object of options, got ${typeName(config)}`)
  refuseUnknownOptions(config, [...GATE_OPTION_NAMES, ...extra], label)
  // Each option read once, into the configuration the gate is built from: a getter answering a valid value to
  // the check and another one later (a timeout of 2^31 ms) never reaches the gate.
  const settled: Record<string, unknown> = {}
  for (const [key, row] of Object.entries(GATE_OPTIONS) as [string, OptionRow][]) {
    const value = readOption(config, key, label)
    if (value === undefined) continue
    settled[key] = value
    if (row.expected === undefined) continue
    const [expected, ok] = row.expected
    if (!ok(value)) throw new TypeError(`${label}: ${key} must be ${expected}, got ${shownValue(value)}`)
  }
  for (const key of DURATIONS) {
    const value = settled[key]
    const problem = value === undefined ? undefined : DURATION(value)
    if (problem !== undefined) throw new RangeError(`${label}: ${key} must be ${problem}, got ${shownValue(value)}`)
  }
  return settled as unknown as GateConfig<unknown>
}

/** The gate's durations: whole milliseconds below 2^31 (a timer of 2^31 ms fires after 1 ms, and every call would fail). */
const DURATIONS: readonly (keyof GateConfig)[] = ['timeoutMs', 'runTimeoutMs']
const DURATION = option.duration()
