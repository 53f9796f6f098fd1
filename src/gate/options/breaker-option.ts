import { eventTags } from '../../events/event-tags.ts'
import { isProviderError } from '../../model/provider-error.ts'
import type { Admission } from '../../policies/admission.ts'
import { breakerAdmission, breakerResult } from '../../policies/breaker/breaker-admission.ts'
import type { BreakerResult } from '../../policies/breaker/breaker-permit.ts'
import { circuitBreaker, isCircuitBreaker } from '../../policies/breaker/circuit-breaker.ts'
import { BUDGET_STORE_FAILED } from '../../policies/budget/budget-admission.ts'
import { classifyError } from '../classify-error.ts'
import type { GateConfig } from '../gate-config.ts'
import type { LinkEnv } from './link-env.ts'
import type { AttemptContext } from '../../policies/middleware.ts'
import type { GateAttempt } from '../run/gate-attempt.ts'
import { advisoryStoreReport } from './advisory-store-report.ts'

/** The `breaker` option's policy: a circuit breaker per provider, its transitions reported as `breaker_state`. */
export function breakerOption(config: GateConfig<unknown>, env: LinkEnv): Admission | undefined {
  if (config.breaker === undefined || config.breaker === false) return undefined
  const breaker = isCircuitBreaker(config.breaker) ? config.breaker : circuitBreaker(config.breaker)
  const { events } = env
  return breakerAdmission(breaker, judgeForBreaker, {
    onTransition: (t, ctx) => {
      if (!events.has('breaker_state')) return
      events.emit('breaker_state', {
        runId: ctx.runId,
        ...eventTags(ctx.turn, ctx.metadata),
        provider: t.provider,
        from: t.from,
        to: t.to,
        failures: t.failures,
      })
    },
    onStoreError: advisoryStoreReport(events, env.warned, 'breaker'),
    keyOf: breakerKeyOf,
  })
}

/** The breaker an attempt asks: its provider's `breakerKey` (two different providers of one name keep apart), else its name. */
function breakerKeyOf(ctx: AttemptContext): string {
  const run = (ctx as Partial<Pick<GateAttempt<unknown>, 'run'>>).run
  return run?.g.providers[ctx.providerIdx]?.breakerKey ?? ctx.provider
}

/** A store failure of the budget says nothing about the provider; anything else is classified. */
function judgeForBreaker(error: unknown): BreakerResult {
  if (isProviderError(error) && error.code === BUDGET_STORE_FAILED) return 'ignored'
  return breakerResult(classifyError(error).kind)
}
