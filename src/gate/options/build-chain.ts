import { compose, type Chain } from '../../policies/compose.ts'
import type { GateConfig } from '../gate-config.ts'
import { admissionLink } from '../../policies/admission.ts'
import type { AttemptResult } from '../../policies/middleware.ts'
import { checkAnswer, checkLink } from '../run/check-link.ts'
import { meterAnswer, meterLink, type MeterSettings } from '../run/meter-link.ts'
import type { LinkEnv } from './link-env.ts'
import { userLinks } from './link-options.ts'
import { optionLinks, optionPolicies } from './option-table.ts'

/**
 * The attempt chain of a gate, composed once, outermost first: the options' outer links (the
 * deadline), the check, the policies (rate limit, breaker, budget: one link, asked at once), the meter, the user's
 * middleware, then the provider call (supplied per run). Only configured options add links.
 */
export function buildChain(config: GateConfig<unknown>, env: LinkEnv, meter: MeterSettings): { readonly chain: Chain; readonly userLinks: boolean } {
  const user = userLinks(config, env)
  const outer = optionLinks(config, env)
  const policies = optionPolicies(config, env)
  if (outer.length === 0 && policies.length === 0 && user.length === 0) return { chain: checkedAndMetered(meter), userLinks: false }
  const links = [...outer, checkLink(), ...(policies.length > 0 ? [admissionLink(policies)] : []), meterLink(meter), ...user]
  return { chain: compose(links), userLinks: user.length > 0 }
}

/**
 * The chain of a gate with no option link and no middleware: the check and the meter alone, their
 * bodies called in the same order as their links would call them (meter, then check) around the
 * provider, without a link between them to enter.
 */
function checkedAndMetered(meter: MeterSettings): Chain {
  return function checkAndMeter(ctx, terminal) {
    let pending: Promise<AttemptResult>
    try {
      pending = terminal(ctx)
    } catch (error) {
      return Promise.reject(error)
    }
    return pending.then((result) => checkAnswer(ctx, meterAnswer(meter, ctx, result)))
  }
}
