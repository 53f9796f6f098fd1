/**
 * Spend within this many USD of a budget counts as reaching it: sums of float prices drift (three
 * $0.10 attempts add up to 0.30000000000000004 or 0.29999999999999993), and a budget check must not
 * hinge on that noise.
 */
export const BUDGET_TOLERANCE_USD = 1e-9
