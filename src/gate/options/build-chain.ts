import { compose, type Chain } from '../../policies/compose.ts'
import type { GateConfig } from '../gate-config.ts'
import { checkLink } from '../run/check-link.ts'
import { meterLink, type MeterSettings } from '../run/meter-link.ts'
import type { LinkEnv } from './link-env.ts'
import { userLinks } from './link-options.ts'
import { optionLinks } from './option-table.ts'

/**
 * The attempt chain of a gate, composed once, outermost first: the options' outer links (the
 * deadline), the check, the policies (rate limit, breaker, budget), the meter, the user's
 * middleware, then the provider call (supplied per run). Only configured options add links.
 */
export function buildChain(config: GateConfig<unknown>, env: LinkEnv, meter: MeterSettings): { readonly chain: Chain; readonly userLinks: boolean } {
  const user = userLinks(config, env)
  const links = [...optionLinks(config, env, 'outer'), checkLink(), ...optionLinks(config, env, 'policy'), meterLink(meter), ...user]
  return { chain: compose(links), userLinks: user.length > 0 }
}
