import type { EventHub } from '../../events/event-hub.ts'
import type { PriceUsage } from '../../policies/pricing/price-usage.ts'

/** What an option's link may use when the gate builds it: where to report, how to price, what was warned. */
export interface LinkEnv {
  readonly events: EventHub
  readonly priceUsage: PriceUsage | undefined
  /** Process warnings already written by this gate (see `warnOnce`). */
  readonly warned: Set<string>
  /** The label errors about options start with (`createGate`, `Agent.reliability`). */
  readonly label: string
}
