/**
 * Characters of input that pattern checks may read in one pass over a value (the check, and for a
 * rejected value the error walk): RE2 is linear, but re2js reads roughly 10 million characters a
 * second, so this keeps one answer's pattern checks within tens of milliseconds. A string beyond what
 * is left fails its pattern check, with an issue saying it was too long to check (never passes
 * unchecked). Patterns that run natively (see `isNativeSafe`) do not count.
 */
export const PATTERN_BUDGET = 250_000

let remaining = Number.POSITIVE_INFINITY
let open = false
let refused: Set<string> | undefined

/**
 * Opens a fresh pattern budget for one pass over a value; `false` when one is already open (a nested
 * validation shares it). Pair with {@link closePatternBudget}, in a `finally`.
 */
export function openPatternBudget(): boolean {
  if (open) return false
  open = true
  remaining = PATTERN_BUDGET
  refused = undefined
  return true
}

/** Closes the budget this call opened; returns the strings refused for want of budget, if any. */
export function closePatternBudget(opened: boolean): ReadonlySet<string> | undefined {
  if (!opened) return undefined
  const out = refused
  open = false
  remaining = Number.POSITIVE_INFINITY
  refused = undefined
  return out
}

/** Takes `runs` reads of `input` from the budget; `false` (and the input remembered) when too few are left. */
export function spendPatternBudget(input: string, runs = 1): boolean {
  const cost = input.length * runs
  if (cost <= remaining) {
    remaining -= cost
    return true
  }
  ;(refused ??= new Set()).add(input)
  return false
}
