/**
 * `npm run demo`: the showcase, on the embedded simulated model (no network, no API key).
 * The simulated provider is a deterministic simulator of common model mistakes, not a language model.
 *
 * `npm run demo -- --trace demo.jsonl` (or `DEMO_TRACE=demo.jsonl npm run demo`) also records every
 * run as JSON Lines; `npm run trace:view -- demo.jsonl` (`npx reliability-gate view demo.jsonl` once
 * installed) opens it.
 */
import { recordTrace } from '../src/trace/index.ts'
import { circuitBreakerExample } from './circuit-breaker.ts'
import { observeEventsExample } from './observe-events.ts'
import { middlewareExample } from './middleware.ts'
import { failoverExample } from './provider-failover.ts'
import { strictOutputConfigExample } from './strict-output-config.ts'
import { strictOutputExample } from './strict-output.ts'
import { stuckLoopExample } from './stuck-loop.ts'
import { toolsExample } from './tools.ts'
import { recordInto } from './trace.ts'
import { sessionsExample } from './sessions.ts'

const traceAt = process.argv.indexOf('--trace')
const tracePath = traceAt >= 0 ? process.argv[traceAt + 1] : process.env.DEMO_TRACE
const recorder = tracePath === undefined || tracePath === '' ? undefined : recordTrace([], { path: tracePath })
recordInto(recorder)

console.log('reliability-gate demo: every model below is the embedded simulator (see README).')
await strictOutputExample()
await stuckLoopExample()
await observeEventsExample()
await failoverExample()
await toolsExample()
await strictOutputConfigExample()
await circuitBreakerExample()
await middlewareExample()
await sessionsExample()
if (recorder !== undefined) {
  await recorder.stop()
  console.log(`\ntrace recorded in ${tracePath}: open it with npm run trace:view -- ${tracePath}`)
}
console.log('\ndone.')
