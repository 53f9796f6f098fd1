/**
 * `npm run demo`: the showcase, on the embedded simulated model (no network, no API key).
 * The simulated provider is a deterministic simulator of common model mistakes, not a language model.
 */
import { circuitBreakerExample } from './circuit-breaker.ts'
import { observeEventsExample } from './observe-events.ts'
import { middlewareExample } from './middleware.ts'
import { failoverExample } from './provider-failover.ts'
import { strictOutputConfigExample } from './strict-output-config.ts'
import { strictOutputExample } from './strict-output.ts'
import { stuckLoopExample } from './stuck-loop.ts'
import { toolsExample } from './tools.ts'

console.log('reliability-gate demo: every model below is the embedded simulator (see README).')
await strictOutputExample()
await stuckLoopExample()
await observeEventsExample()
await failoverExample()
await toolsExample()
await strictOutputConfigExample()
await circuitBreakerExample()
await middlewareExample()
console.log('\ndone.')
