/**
 * `npm run demo`: the showcase, on the embedded simulated model (no network, no API key).
 * The simulated provider is a deterministic simulator of common model mistakes, not a language model.
 */
import { observeEventsExample } from './observe-events.ts'
import { failoverExample } from './provider-failover.ts'
import { strictOutputExample } from './strict-output.ts'
import { stuckLoopExample } from './stuck-loop.ts'

console.log('reliability-gate demo: every model below is the embedded simulator (see README).')
await strictOutputExample()
await stuckLoopExample()
await observeEventsExample()
await failoverExample()
console.log('\ndone.')
