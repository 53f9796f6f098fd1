/**
 * A child for `test/gate/hidden-classes-kept.test.ts`: runs a gate (the production configuration)
 * and an agent until their code is optimised, prints a marker, forces a full collection between two
 * runs (when none of a run's objects is alive), and runs again. Run with `--expose-gc --trace-deopt`:
 * every deoptimisation after the marker is printed by V8.
 */
import { Type } from 'typebox'
import { Agent, circuitBreaker, createGate, memoryStore, sharedBudget, strictOutputRules, type Provider } from '../../src/index.ts'

const Refund = Type.Object({ orderId: Type.String(), amount: Type.Number() })
const content = JSON.stringify({ orderId: '42', amount: 50 })
const provider: Provider = { name: 'p', complete: async () => ({ content, toolCalls: [], usage: { inputTokens: 10, outputTokens: 10 }, stopReason: 'end' }) }
const store = memoryStore()
const gate = createGate({
  providers: [provider],
  model: 'm',
  outputSchema: Refund,
  pricing: { m: { input: 1, output: 1 } },
  timeoutMs: 30_000,
  breaker: circuitBreaker({ store, failureThreshold: 5, cooldownMs: 30_000 }),
  budget: sharedBudget({ store, key: 'b', usd: 1e9 }),
  postDecide: strictOutputRules(2),
})
const plain = createGate({ providers: [provider], outputSchema: Refund, postDecide: strictOutputRules(2) })
const agent = Agent.create({ provider, model: 'm', name: 'a' }).outputSchema(Refund).build()
const request = { messages: [{ role: 'user' as const, content: 'refund #42' }] }

async function runs(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await gate.run(request)
    await plain.run(request)
    await agent.runTyped('refund #42')
  }
}

await runs(Number(process.argv[2] ?? 5_000))
console.log('=== full collection')
;(globalThis as { gc?: () => void }).gc?.()
await runs(2_000)
console.log('=== done')
