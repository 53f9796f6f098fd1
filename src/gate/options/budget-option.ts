import { eventTags } from '../../events/event-tags.ts'
import type { Admission } from '../../policies/admission.ts'
import { budgetAdmission } from '../../policies/budget/budget-admission.ts'
import type { GateConfig } from '../gate-config.ts'
import { warnOnce } from '../warn-once.ts'
import type { LinkEnv } from './link-env.ts'
import { stateLostReport } from './state-lost-report.ts'

/**
 * The `budget` option's policy: a shared budget, reserve then commit, charged the meter's price of
 * each answer; a spent budget is reported as `budget_exceeded`, a reservation it cannot price as
 * `cost_unknown` (or a process warning when nobody listens).
 */
export function budgetOption(config: GateConfig<unknown>, env: LinkEnv): Admission | undefined {
  const budget = config.budget
  if (budget === undefined) return undefined
  const { events } = env
  return budgetAdmission({
    budget,
    price: env.priceUsage,
    onExceeded: (spentUsd, ctx) => {
      if (!events.has('budget_exceeded')) return
      events.emit('budget_exceeded', { runId: ctx.runId, ...eventTags(ctx.turn, ctx.metadata), budgetUsd: budget.usd, spentUsd, action: 'halt' })
    },
    onUnpriced: (ctx, reason, usage) => {
      if (events.has('cost_unknown')) {
        const tags = eventTags(ctx.turn, ctx.metadata)
        events.emit('cost_unknown', {
          runId: ctx.runId,
          ...tags,
          attempt: ctx.attempt,
          provider: ctx.provider,
          model: ctx.model,
          source: 'shared-budget',
          reason,
          usage,
        })
        return
      }
      warnOnce(
        env.warned,
        `budget\u0000${ctx.provider}\u0000${reason}`,
        `reliability-gate: the shared budget "${budget.key}" could not price an attempt of provider "${ctx.provider}": ${reason}.`,
      )
    },
    onStoreError: stateLostReport(events, 'budget'),
  })
}
