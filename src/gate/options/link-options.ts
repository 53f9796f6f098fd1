import { positiveNumber } from '../../model/assert-number.ts'
import { deadlineStage } from '../../policies/deadline/deadline.ts'
import type { Stage } from '../../policies/stage.ts'
import type { Middleware } from '../../policies/middleware.ts'
import type { Admission } from '../../policies/admission.ts'
import { rateLimitAdmission } from '../../policies/rate-limit/rate-limit-admission.ts'
import type { GateConfig } from '../gate-config.ts'
import type { LinkEnv } from './link-env.ts'
import { advisoryStoreReport } from './advisory-store-report.ts'

/** The `timeoutMs` option's stage: the deadline over the whole attempt (it is the outermost stage). */
export function timeoutOption(config: GateConfig<unknown>, env: LinkEnv): Stage<unknown> | undefined {
  if (config.timeoutMs === undefined) return undefined
  return deadlineStage(positiveNumber(config.timeoutMs, `${env.label}: timeoutMs`))
}

/** The `rateLimit` option's policy: a slot of the provider's shared window before the call. */
export function rateLimitOption(config: GateConfig<unknown>, env: LinkEnv): Admission | undefined {
  return config.rateLimit === undefined ? undefined : rateLimitAdmission(config.rateLimit, advisoryStoreReport(env.events, env.warned, 'rate-limit'))
}

/** The `middleware` option's links, innermost: each must be a function `(ctx, next)`. */
export function userLinks(config: GateConfig<unknown>, env: LinkEnv): readonly Middleware[] {
  const links = config.middleware ?? []
  links.forEach((link: unknown, i) => {
    if (typeof link !== 'function')
      throw new TypeError(`${env.label}: middleware[${i}] must be a function (ctx, next) => Promise<{ response }>, got ${typeof link}`)
  })
  return links
}
