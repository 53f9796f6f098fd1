/**
 * Characters of input that pattern checks may read in one pass over a value (the check, and for a
 * rejected value the error walk): RE2 is linear, but re2js reads roughly 10 million characters a
 * second, so this keeps one answer's pattern checks within tens of milliseconds. A string beyond what is left fails its pattern check, with an issue saying
 * it was too long to check (never passes unchecked).
 */
export const PATTERN_BUDGET = 250_000

let remaining = Number.POSITIVE_INFINITY
let refused: Set<string> | undefined

/**
 * Runs one validation with a fresh pattern budget (nested calls share the outer one) and returns
 * its result with the strings refused for lack of budget.
 */
export function withPatternBudget<R>(run: () => R): { readonly result: R; readonly refused: ReadonlySet<string> | undefined } {
  if (refused !== undefined) return { result: run(), refused: undefined }
  remaining = PATTERN_BUDGET
  const mine = new Set<string>()
  refused = mine
  try {
    return { result: run(), refused: mine.size > 0 ? mine : undefined }
  } finally {
    refused = undefined
    remaining = Number.POSITIVE_INFINITY
  }
}

/** Takes `runs` reads of `input` from the budget; `false` (and the input remembered) when too few are left. */
export function spendPatternBudget(input: string, runs = 1): boolean {
  const cost = input.length * runs
  if (cost <= remaining) {
    remaining -= cost
    return true
  }
  refused?.add(input)
  return false
}
