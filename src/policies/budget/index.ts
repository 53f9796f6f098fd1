export { sharedBudget } from './shared-budget.ts'
export type { SharedBudget, SharedBudgetOptions } from './shared-budget.ts'
export { BUDGET_STORE_FAILED, budgetLink } from './budget-link.ts'
export type { OnBudgetExceeded } from './budget-link.ts'
