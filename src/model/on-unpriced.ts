/**
 * What a budget does with an attempt whose cost cannot be priced (an unknown model, a price
 * function that fails, no pricing at all): `warn` counts it as $0 and reports `cost_unknown` (a
 * process warning when nobody listens); `fail` fails closed, stopping the run rather than spending
 * what it cannot count.
 */
export type OnUnpriced = 'warn' | 'fail'

/** Checks an `onUnpriced` option; `label` names it, e.g. `'sharedBudget: onUnpriced'`. */
export function onUnpricedOption(value: unknown, label: string): OnUnpriced {
  if (value === undefined) return 'warn'
  if (value === 'warn' || value === 'fail') return value
  throw new TypeError(`${label} must be 'warn' or 'fail', got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`)
}
