export { sharedBudget } from './shared-budget.ts'
export type { SharedBudget, SharedBudgetOptions } from './shared-budget.ts'
export { BUDGET_STORE_FAILED, budgetAdmission } from './budget-admission.ts'
export type { BudgetPolicy, OnBudgetExceeded } from './budget-admission.ts'
