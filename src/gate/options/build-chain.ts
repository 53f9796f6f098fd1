import { admissionLink } from '../../policies/admission.ts'
import { compose, type Chain } from '../../policies/compose.ts'
import { stageLink, stageOf } from '../../policies/link.ts'
import type { GateConfig } from '../gate-config.ts'
import { CHECK_STAGE } from '../run/check-link.ts'
import { type MeterSettings, meterStage } from '../run/meter-link.ts'
import type { LinkEnv } from './link-env.ts'
import { userLinks } from './link-options.ts'
import { optionLinks, optionPolicies } from './option-table.ts'

/**
 * The attempt chain of a gate, composed once, outermost first: the options' outer links (the
 * deadline), the check, the policies (rate limit, breaker, budget: one link, asked at once), the
 * meter, the user's middleware, then the provider call (supplied per run). Only configured options
 * add links. The library's links are stages: side by side they run as one step (see `Stage`).
 */
export function buildChain(
  config: GateConfig<unknown>,
  env: LinkEnv,
  meter: MeterSettings,
): { readonly chain: Chain; readonly userLinks: boolean; readonly stops: boolean; readonly settles: boolean } {
  const user = userLinks(config, env)
  const policies = optionPolicies(config, env)
  const links = [
    ...optionLinks(config, env),
    stageLink(CHECK_STAGE),
    ...(policies.length > 0 ? [admissionLink(policies)] : []),
    stageLink(meterStage(meter)),
    ...user,
  ]
  // A chain with a deadline hands on the attempt's own signal, made only if someone reads it.
  return {
    chain: compose(links),
    userLinks: user.length > 0,
    stops: links.some((link) => stageOf(link)?.stops === true),
    // The outermost run of stages may settle the attempt itself (the check is always a stage, so there is one).
    settles: stageOf(links[0]) !== undefined,
  }
}
