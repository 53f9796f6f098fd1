// One random prefix per process plus a counter: unique across processes in practice, and nearly
// free per run (no crypto call on the hot path).
let prefix: string | undefined
let counter = 0
// The counter in base 36 is the id's head (prefix and every digit but the last two, changed once in
// 1,296 runs) plus its last two digits from a table: one string concatenation per run, where
// `counter.toString(36)` costs a runtime call and a second string.
const TAIL_RUNS = 36 * 36
let tails: readonly string[] | undefined
let headOf = -1
let head = ''

/** A new run id, e.g. `run_k3v9x2ab_1f`: unique within the process and, in practice, across processes. */
export function newRunId(): string {
  prefix ??= randomPrefix()
  counter++
  if (counter < TAIL_RUNS) return prefix + counter.toString(36)
  const high = Math.floor(counter / TAIL_RUNS)
  if (high !== headOf) {
    headOf = high
    head = prefix + high.toString(36)
    tails ??= Array.from({ length: TAIL_RUNS }, (_, i) => i.toString(36).padStart(2, '0'))
  }
  return head + (tails as readonly string[])[counter - high * TAIL_RUNS]
}

function randomPrefix(): string {
  const bytes = new Uint8Array(6)
  globalThis.crypto.getRandomValues(bytes)
  let s = 'run_'
  for (const b of bytes) s += (b % 36).toString(36)
  return `${s}_`
}
