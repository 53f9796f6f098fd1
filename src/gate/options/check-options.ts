import { shownValue, typeName } from '../../model/describe-value.ts'
import { isRecord } from '../../model/is-record.ts'
import { GATE_OPTIONS, GATE_OPTION_NAMES, type OptionRow } from './option-table.ts'

/**
 * Throws a `TypeError` naming the first option of a gate's config (or an agent's reliability
 * options, which become one) that is misspelt (`outputschema`, `maxRetries`: an option nobody reads
 * would leave a JavaScript user ungated without a word) or whose value has the wrong type, so that a
 * typo fails where it is written. `label`: `createGate` or the agent's; `extra`: keys the caller
 * itself takes beside the gate's.
 */
export function checkConfig(config: unknown, label = 'createGate', extra: readonly string[] = []): void {
  if (!isRecord(config)) throw new TypeError(`${label}: expected an object of options, got ${typeName(config)}`)
  for (const key of Object.keys(config)) {
    if (key in GATE_OPTIONS || extra.includes(key)) continue
    const known = [...GATE_OPTION_NAMES, ...extra]
    const near = known.find((name) => name.toLowerCase() === key.toLowerCase()) ?? known.find((name) => editDistance(name, key) <= 2)
    const shown = JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}…` : key)
    throw new TypeError(`${label}: unknown option ${shown}${near !== undefined ? ` (did you mean "${near}"?)` : ''}; the options are ${known.join(', ')}`)
  }
  for (const [key, row] of Object.entries(GATE_OPTIONS) as [string, OptionRow][]) {
    const value = config[key]
    if (value === undefined || row.expected === undefined) continue
    const [expected, ok] = row.expected
    if (!ok(value)) throw new TypeError(`${label}: ${key} must be ${expected}, got ${shownValue(value)}`)
  }
}

/** Levenshtein distance of two short names, for "did you mean". */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = row
  }
  return prev[b.length] as number
}
