/**
 * A child for `test/gate/hidden-classes-kept.test.ts`: runs a gate (the production configuration),
 * a plain one (run and stream) and two agents (one calling a tool) until their code is optimised,
 * prints a marker, forces a full collection between two runs (when none of a run's objects is
 * alive), and runs again. Run with `--expose-gc --trace-deopt`:
 * every deoptimisation after the marker is printed by V8.
 */
import { Type } from 'typebox'
import { Agent, circuitBreaker, createGate, memoryStore, sharedBudget, strictOutputRules, tool, type Provider } from '../../src/index.ts'

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
// An agent whose every other answer calls a tool: the tool-call loop and its argument check.
let turn = 0
const calling: Provider = {
  name: 't',
  complete: async () =>
    turn++ % 2 === 0
      ? {
          content: '',
          toolCalls: [{ id: `c${turn}`, name: 'lookup', args: { id: '42' } }],
          usage: { inputTokens: 10, outputTokens: 10 },
          stopReason: 'tool_use',
        }
      : { content, toolCalls: [], usage: { inputTokens: 10, outputTokens: 10 }, stopReason: 'end' },
}
const lookup = tool({ name: 'lookup', description: 'Looks an order up.', input: Type.Object({ id: Type.String() }), execute: () => 'found' })
const toolAgent = Agent.create({ provider: calling, model: 'm', name: 't' }).outputSchema(Refund).tools([lookup]).build()
const request = { messages: [{ role: 'user' as const, content: 'refund #42' }] }

async function runs(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await gate.run(request)
    await plain.run(request)
    await agent.runTyped('refund #42')
    await toolAgent.runTyped('refund #42')
    await plain.stream(request).result
  }
}

await runs(Number(process.argv[2] ?? 3_000))
console.log('=== full collection')
;(globalThis as { gc?: () => void }).gc?.()
await runs(2_000)
console.log('=== done')
