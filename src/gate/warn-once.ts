type WarningProcess = { emitWarning?: (message: string, options: { code: string }) => void }

// Distinct warnings kept per gate: enough for every model of a pricing table, bounded for a price
// function that throws a new message every time.
const MAX_KEYS = 100

/**
 * Writes a process warning (Node's `process.emitWarning`, printed on stderr) the first time `key`
 * is seen in `seen`: loud enough to notice a silently switched-off budget, quiet enough not to
 * flood a log. Does nothing where there is no `process` (browsers, workers).
 */
export function warnOnce(seen: Set<string>, key: string, message: string, code = 'RELIABILITY_GATE_COST_UNKNOWN'): void {
  if (seen.has(key) || seen.size >= MAX_KEYS) return
  seen.add(key)
  const proc = (globalThis as { process?: WarningProcess }).process
  if (typeof proc?.emitWarning !== 'function') return
  try {
    proc.emitWarning(message, { code })
  } catch {
    // Warning is observation: it must never break a run.
  }
}
