// One random prefix per process plus a counter: unique across processes in practice, and nearly
// free per run (no crypto call on the hot path).
let prefix: string | undefined
let counter = 0

/** A new run id, e.g. `run_k3v9x2ab_1f`: unique within the process and, in practice, across processes. */
export function newRunId(): string {
  prefix ??= randomPrefix()
  return prefix + (++counter).toString(36)
}

function randomPrefix(): string {
  const bytes = new Uint8Array(6)
  globalThis.crypto.getRandomValues(bytes)
  let s = 'run_'
  for (const b of bytes) s += (b % 36).toString(36)
  return `${s}_`
}
