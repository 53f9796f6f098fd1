/**
 * Circuit breaker, failover and cost: the primary provider goes down; after two failures its breaker
 * opens and later runs skip it at once (kind `circuit-open`, no call, no cost) and fail over to the
 * backup. Once the cooldown has passed, one probe reaches the recovered primary and closes the
 * breaker. Every attempt is priced, failed ones included, and a PreCheck budget guards each attempt.
 *
 * The breaker's clock is virtual here, so the 30 s cooldown passes instantly.
 */
import { Type } from 'typebox'
import { createGate, failoverRule, maxCostRule, ProviderError, strictOutputRules, type Provider } from '../src/index.ts'
import { simulated } from '../src/providers/index.ts'
import { section, watch } from './trace.ts'

const Summary = Type.Object({ headline: Type.String(), sentiment: Type.Union([Type.Literal('positive'), Type.Literal('neutral'), Type.Literal('negative')]) })

// Example prices for the demo, in USD per million tokens: not any provider's real price list.
const pricing = { 'big-1': { input: 3, output: 15 }, 'small-1': { input: 0.25, output: 1.25 } }

/** A primary that is down until `recovered` is set, then answers through the simulated model. */
function flakyPrimary(): Provider & { recovered: boolean; calls: number } {
  const healthy = simulated({ seed: 7, faults: [], name: 'primary' })
  const p = {
    name: 'primary',
    recovered: false,
    calls: 0,
    complete(request: Parameters<Provider['complete']>[0]) {
      p.calls++
      if (!p.recovered) return Promise.reject(new ProviderError('Overloaded', { kind: 'http-5xx', status: 529, provider: 'primary' }))
      return healthy.complete(request)
    },
  }
  return p
}

export async function circuitBreakerExample(): Promise<void> {
  section('circuit breaker', 'The primary is down: its breaker opens, runs fail over at once, a probe closes it after recovery.')
  let clock = 0
  const primary = flakyPrimary()
  const gate = createGate({
    providers: [
      { provider: primary, model: 'big-1' },
      { provider: simulated({ seed: 5, faults: [], name: 'backup' }), model: 'small-1' },
    ],
    outputSchema: Summary,
    pricing,
    breaker: { failureThreshold: 2, cooldownMs: 30_000, now: () => clock },
    preCheck: [maxCostRule(0.05)],
    // Fail over at once; put retryTransient() first to retry the same provider a few times before.
    postDecide: [failoverRule(), ...strictOutputRules(3)],
  })
  watch(gate)
  gate.on('breaker_state', (e) => console.log(`    breaker ${e.provider}: ${e.from} → ${e.to} (failures: ${e.failures})`))

  const ask = async (label: string): Promise<void> => {
    const callsBefore = primary.calls
    const result = await gate.run({ messages: [{ role: 'user', content: 'summarise: the launch went well and customers are happy' }] })
    const path = result.attempts.map((a) => `${a.provider}:${a.status}`).join(' → ')
    console.log(`  ${label}: ${path}  (primary called ${primary.calls - callsBefore}×, cost $${result.costUsd.toFixed(6)})`)
  }

  await ask('run 1')
  await ask('run 2')
  await ask('run 3')
  console.log('  … 30 s later, the primary has recovered')
  clock += 30_000
  primary.recovered = true
  await ask('run 4')
  await ask('run 5')
}

if (import.meta.main) await circuitBreakerExample()
